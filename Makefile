# Urna: `make run` and `make test` are all a fresh machine needs (they install what is missing).
SHELL := /bin/bash
export PATH := /opt/swift/usr/bin:$(PATH)
DEB_PACKAGES := libsqlite3-dev libxml2-dev zlib1g-dev libcurl4-openssl-dev libpq-dev sqlite3 pkg-config
# Benchmark peers only (never linked into urna): xmllint for the XML reader's own speed, PostgreSQL (psql \\copy) for the backend's.
BENCH_PACKAGES := libxml2-utils postgresql
DB ?= urna.sqlite
URNA := .build/release/urna

# Test tools only (never linked into urna nor needed to run it): Datasette, for the datasette-metadata test.
TEST_VENV := .build/test-venv
# Test tools only: zsh and fish check that `urna completion zsh|fish` scripts parse (`-n`); postgresql is the
# server the PostgreSQL backend tests start (a throwaway cluster on 127.0.0.1).
TEST_DEB_PACKAGES := zsh fish postgresql

.PHONY: deps test-deps build run test bench fuzz format clean

deps:
	@missing=""; for p in $(DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi
	@command -v swift >/dev/null || { echo "Swift 6 toolchain not found (expected at /opt/swift)"; exit 1; }

build: deps
	swift build -c release --product urna

run: build
	rm -f $(DB) $(DB)-wal $(DB)-shm $(DB).rejects.csv
	$(URNA) import --db $(DB) SampleData/consulta_cand_2016_AC.txt SampleData/consulta_legendas_2016_AC.txt \
	  SampleData/consulta_cand_2018_MG.csv SampleData/bem_candidato_2018_MG.csv
	@echo; echo "== Mayoral candidates of Rio Branco (AC), 2016, by ballot name =="
	$(URNA) query --db $(DB) Candidate "postCode == 11 AND unitName ==[c] 'RIO BRANCO'" --sort nickname \
	  --fields number,nickname,party.acronym,coalition.name,result
	@echo; echo "== One candidacy in full =="
	$(URNA) show --db $(DB) candidate 130000600702 --election 297
	@echo; echo "== Candidacies per party, in SQL =="
	$(URNA) sql --db $(DB) "SELECT p.acronym, count(*) AS candidacies FROM Candidate c JOIN Party p ON p.id = c.party GROUP BY p.acronym ORDER BY candidacies DESC LIMIT 5"
	@echo; echo "== Upgrading an old app's file (version 1) =="
	rm -f /tmp/urna-demo-v1.sqlite* && cp SampleData/elections-v1-seed.sqlite /tmp/urna-demo-v1.sqlite
	$(URNA) migrate --db /tmp/urna-demo-v1.sqlite --dry-run --sample 1
	$(URNA) migrate --db /tmp/urna-demo-v1.sqlite

# Best effort: without network or PyPI the Datasette test reports itself skipped, and the rest still runs.
test-deps:
	@missing=""; for p in $(TEST_DEB_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing (for tests only):$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  { $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; } \
	    || echo "warning: could not install$$missing; the completion syntax checks for them will be skipped"; \
	fi
	@if [ ! -x $(TEST_VENV)/bin/datasette ]; then \
	  echo "installing Datasette into $(TEST_VENV) (for tests only)"; \
	  mkdir -p .build && python3 -m venv $(TEST_VENV) && $(TEST_VENV)/bin/pip install -q datasette \
	    || echo "warning: could not install Datasette; its test will be skipped"; \
	fi

test: deps test-deps
	swift build --build-tests
	@# With the server installed, a PostgreSQL test that cannot start one fails instead of reporting itself skipped.
	@# Every test's temporary files go to one private folder, removed afterwards (a run left ~3,000 folders behind).
	if dpkg -s postgresql >/dev/null 2>&1; then export URNA_REQUIRE_POSTGRES=1; fi; \
	  tmp=$$(mktemp -d "$${TMPDIR:-/tmp}/urna-test.XXXXXX") || exit 1; \
	  TMPDIR="$$tmp" swift test --skip-build 2>&1 | tee .build/test-output.txt; rc=$${PIPESTATUS[0]}; \
	  rm -rf "$$tmp"; exit $$rc

bench: deps
	@for p in $(BENCH_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || { SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; $$SUDO apt-get install -y -qq $$p || { $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq $$p; }; }; done
	swift build -c release --product urna
	swift build -c release --product urna-bench
	.build/release/urna-bench $(BENCH_ARGS)

FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
fuzz: deps
	bash Sources/UrnaFuzz/run-fuzzers.sh --seconds $(FUZZ_SECONDS) $(FUZZ_TARGETS)

format:
	swift format --in-place --recursive Sources Migrations Tests

clean:
	rm -rf .build $(DB) $(DB)-wal $(DB)-shm
