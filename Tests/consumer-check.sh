#!/bin/sh
# Builds Tests/ConsumerPackage (a Swift 6 language-mode app depending on this package by path) and runs it.
set -e
cd "$(dirname "$0")/ConsumerPackage"
swift build
swift run UrnaConsumer
