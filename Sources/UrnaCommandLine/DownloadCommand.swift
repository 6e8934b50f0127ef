import Foundation
import UrnaDownload
import UrnaStore

/// `urna download`: TSE's official zips for whole years, resumable and cached, ready for `urna import DIR`.
enum DownloadCommand {
    /// TSE's open-data tree (the files behind dadosabertos.tse.jus.br).
    static let defaultBaseURL = "https://cdn.tse.jus.br/estatistica/sead/odsele"

    /// `--kinds` names and the folder/file stem each has in TSE's tree.
    static let kinds: [(name: String, stem: String)] = [
        ("cand", "consulta_cand"), ("bem", "bem_candidato"), ("coligacao", "consulta_coligacao"),
        ("legendas", "consulta_legendas"),
    ]

    static let states: Set<String> = [
        "AC", "AL", "AM", "AP", "BA", "CE", "DF", "ES", "GO", "MA", "MG", "MS", "MT", "PA", "PB", "PE", "PI", "PR",
        "RJ",
        "RN", "RO", "RR", "RS", "SC", "SE", "SP", "TO", "BR", "ZZ",
    ]

    static let spec = CommandSpec(
        name: "download", abstract: "Download TSE's candidate, asset and coalition zips for whole years.",
        usage:
            "urna download YEAR... [--state UF]... [--kinds cand,bem,coligacao,legendas] [--dir DIR] [--base-url URL] [--quiet]",
        discussion: """
            Fetches <base>/consulta_cand/consulta_cand_<YEAR>.zip, bem_candidato/bem_candidato_<YEAR>.zip,
            consulta_coligacao/... and consulta_legendas/... (--kinds; default cand,bem) from TSE's open-data tree,
            \(defaultBaseURL) unless --base-url. TSE publishes one zip per year and kind, holding a file per
            state and one for the whole country: the whole-year zip is always downloaded. Without --state it is
            saved in DIR as it is (importing it reads every member; the national and state files do not double
            count). With --state UF (repeatable, or MG,SP; BR is the national file) the zip is kept in DIR/.urna-zips
            and only that state's members are written to DIR. Then `urna import DIR`.
            A second run asks the server whether each file changed (ETag / Last-Modified) and fetches nothing
            when it did not. A dropped connection is resumed with an HTTP Range, in the same run and the next.
            A file that does not open as a zip is deleted and fetched again. Proxies come from http_proxy,
            https_proxy and no_proxy. A progress bar is drawn on a terminal only. The paths ready for import
            are printed on stdout, what happened on stderr.
            """,
        options: [
            .value(
                "state", "UF", "Keep only this state's members (repeatable; BR: the national file).", repeatable: true),
            .value("kinds", "LIST", "Which files: cand, bem, coligacao, legendas (default: cand,bem)."),
            .value("dir", "DIR", "Where the files go (default: the current folder; created when missing)."),
            .value("base-url", "URL", "The open-data tree (default: \(defaultBaseURL))."),
            .flag("quiet", "Print nothing but errors and the paths."),
        ],
        positionals: [("YEAR...", "Election years, e.g. 2018 2022.")], minPositionals: 1, maxPositionals: nil,
        examples: [
            "urna download 2018 --state MG --dir tse-2018 && urna import --db mg2018.sqlite tse-2018",
            "urna download 2020 2022 --kinds cand,bem,coligacao --dir tse",
        ])

    struct Job {
        let url: String
        let zipPath: String
        let stem: String
    }

    static let command = Command(spec: spec) { p in
        let years = try p.positionals.map { y -> Int in
            guard y.count == 4, let n = Int(y), (1994...2100).contains(n) else {
                throw UsageError("YEAR is an election year like 2018, not '\(y)'")
            }
            return n
        }
        var selected: [(name: String, stem: String)] = []
        for k in (p.value("kinds") ?? "cand,bem").split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) })
        {
            guard let kind = kinds.first(where: { $0.name == k }) else {
                var msg = "--kinds takes cand, bem, coligacao and legendas, not '\(k)'"
                if let hint = ArgumentParser.suggestion(for: k, among: kinds.map(\.name)) {
                    msg += "; did you mean '\(hint)'?"
                }
                throw UsageError(msg)
            }
            if !selected.contains(where: { $0.name == kind.name }) { selected.append(kind) }
        }
        let wantedStates = (p.values["state"] ?? []).flatMap { $0.split(separator: ",") }.map { $0.uppercased() }
        for s in wantedStates where !states.contains(s) {
            throw UsageError("--state takes a state's two letters (MG, SP, ...; BR for the national file), not '\(s)'")
        }
        let base = (p.value("base-url") ?? defaultBaseURL).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        guard base.hasPrefix("http://") || base.hasPrefix("https://") else {
            throw UsageError("--base-url must start with http:// or https://, not '\(base)'")
        }
        let dir = p.value("dir") ?? "."
        // Standard output lists the written files one a line, as they are: a line break in one cannot be listed.
        if dir.unicodeScalars.contains(where: { $0 == "\n" || $0 == "\r" }) {
            throw UsageError(
                "--dir '\(dir)' holds a line break: the files written are listed one a line on "
                    + "standard output, so such a folder cannot be named there; choose a folder name without one")
        }
        let zipDir = wantedStates.isEmpty ? dir : (dir as NSString).appendingPathComponent(".urna-zips")
        do {
            try FileManager.default.createDirectory(atPath: zipDir, withIntermediateDirectories: true)
        } catch {
            throw CLIError(ExitCode.failure, "cannot create \(zipDir): \(error.localizedDescription)")
        }
        let quiet = p.has("quiet")
        let bar = TerminalProgress(quiet: quiet)
        func say(_ s: String) {
            bar.finish()
            if !quiet { CLI.printError(s) }
        }
        let downloader = Downloader(
            userAgent: "\(CommandContext.current.toolName)/\(CLI.version)",
            progress: { name, received, total in
                let size =
                    total > 0
                    ? String(format: "/%.1f MiB (%.0f%%)", mib(total), 100 * Double(received) / Double(total)) : " MiB"
                bar.draw(String(format: "%@: %.1f", name, mib(received)) + size)
            },
            notice: { say($0) })
        var firstFailure: Int32?
        // A signal between two files stopped the loop, and the run exited 0, "interrupted after the command had
        // finished", with files it never fetched (2 of 30 SIGINTs in the trial): a run cut short is a failure.
        var cutShort = false
        for year in years {
            for kind in selected {
                if CreatedFiles.isStopping {
                    cutShort = true
                    break
                }
                let file = "\(kind.stem)_\(year).zip"
                let job = Job(
                    url: "\(base)/\(kind.stem)/\(file)", zipPath: (zipDir as NSString).appendingPathComponent(file),
                    stem: kind.stem)
                do {
                    // Held through the fetch and the extraction: another run into this folder waits for both.
                    let lock = try DownloadLock(for: job.zipPath, notice: { say($0) })
                    defer { lock.release() }
                    let outcome = try downloader.fetch(job.url, to: job.zipPath, holding: lock)
                    bar.finish()
                    if outcome != .notModified { Interruption.noteKeptFile() }
                    switch outcome {
                    case .fetched(let bytes): say("\(file): downloaded \(String(format: "%.1f", mib(bytes))) MiB")
                    case .resumed(let from, let bytes):
                        say(
                            "\(file): resumed at \(String(format: "%.1f", mib(from))) MiB, \(String(format: "%.1f", mib(bytes))) MiB more"
                        )
                    case .notModified: say("\(file): unchanged since the last download (nothing fetched)")
                    }
                    // Data for scripts, one path a line, printed as it is (a tab kept): escapes are for messages.
                    if wantedStates.isEmpty {
                        print(job.zipPath)
                    } else {
                        for path in try extract(
                            job, states: wantedStates, into: dir, refresh: outcome != .notModified, say: say)
                        {
                            print(path)
                        }
                    }
                } catch {
                    bar.finish()
                    let (code, message) = CLI.classify(error)
                    CLI.printError("Error: \(message)")
                    firstFailure = firstFailure ?? code
                }
            }
        }
        if cutShort { return firstFailure ?? ExitCode.failure }
        return firstFailure ?? ExitCode.ok
    }

    /// Writes the states' members of a downloaded zip into `dir` (again only when the zip changed or a
    /// member's file is missing); returns their paths.
    static func extract(_ job: Job, states: [String], into dir: String, refresh: Bool, say: (String) -> Void) throws
        -> [String]
    {
        // Members are written under their own names into DIR: only names like the zip's own (consulta_cand_2018_MG.csv
        // in consulta_cand_2018.zip), so a hostile zip cannot replace the user's other files there.
        let stem = ((job.zipPath as NSString).lastPathComponent as NSString).deletingPathExtension
        let members = try ZipMembers.members(of: job.zipPath, states: states, expectedPrefix: stem + "_")
        guard !members.isEmpty else {
            throw CLIError(
                ExitCode.badData,
                "\((job.zipPath as NSString).lastPathComponent) has no member for \(states.joined(separator: ", ")); "
                    + "leave --state out to keep the whole zip")
        }
        var paths: [String] = []
        for entry in members {
            let base = entry.name.split(separator: "/").last.map(String.init) ?? entry.name
            let target = (dir as NSString).appendingPathComponent(base)
            if refresh || !FileManager.default.fileExists(atPath: target) {
                // A signal: the half-written member (a hidden file of hundreds of MB) was left in the folder.
                let temporary = ZipMembers.temporaryPath(of: entry, in: dir)
                CreatedFiles.register(temporary)
                defer { CreatedFiles.unregister(temporary) }
                paths.append(
                    try ZipMembers.extract(entry, of: job.zipPath, into: dir, stop: { CreatedFiles.isStopping }))
                Interruption.noteKeptFile()
                say("  extracted \(base) (\(String(format: "%.1f", mib(entry.uncompressedSize))) MiB)")
            } else {
                paths.append(target)
            }
        }
        return paths
    }

    static func mib(_ bytes: Int64) -> Double { Double(bytes) / 1_048_576 }
}

extension DownloadError: ExitCodeProviding {}
