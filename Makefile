# footstepd: common tasks. `make help` lists them.
SWIFT ?= swift
BUILD_FLAGS ?=
RELEASE_PATH := .build/release
DEBUG_PATH := .build/debug
PREFIX ?= /usr/local
BENCH_DIR ?= bench-data

.PHONY: help deps build release test test-system demo bench fuzz eval install uninstall deb man completions format clean
EVAL_DIR ?= /tmp/footstep-eval
EVAL_DATA ?= /tmp/train-data

help:
	@echo "make deps     install the Debian packages needed to build and test"
	@echo "make build    debug build of footstepd and footstepctl"
	@echo "make release  optimised build"
	@echo "make test     build and run the whole test suite"
	@echo "make demo     synthesize a night upstairs and analyse it (no microphone needed)"
	@echo "make bench    release build, then the benchmarks (figures printed)"
	@echo "make fuzz     release build, then 50,000 hostile requests to a running footstepd (figures printed)"
	@echo "make eval     fetch the real recordings, build the held-out evaluation, train per fold, score unseen vs seen families"
	@echo "              (LOCKBOX=1 scores the lockbox with the shipped model: once, at the end; see docs/evaluation.md)"
	@echo "make install  install binaries, units and the default configuration under PREFIX=$(PREFIX) (DESTDIR honoured)"
	@echo "make uninstall  remove what make install put in place (configuration and evidence are kept)"
	@echo "make deb     the Debian package (Swift runtime linked in) into dist/: sudo apt install ./dist/footstepd_*.deb"
	@echo "make test-system  the package installed and run under a real systemd in a Debian 12 container (root)"
	@echo "make completions  shell completions and man pages for footstepctl into contrib/"

deps:
	./scripts/install-deps.sh

build:
	$(SWIFT) build $(BUILD_FLAGS)

release:
	$(SWIFT) build -c release $(BUILD_FLAGS)

test:
	# Package.swift declares exactly what each target imports.
	python3 scripts/check-imports.py
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	# The evaluation's scorer and its fixed slice through the debug footstepctl.
	python3 -m unittest discover -s tools/eval -p 'test_*.py'
	python3 -m unittest discover -s tools/train -p 'test_*.py'
	# Serial: several suites run child processes (footstepd, footstepctl,
	# pulseaudio, systemd-analyze); run in parallel, blocked waits on 2 cores
	# exhausted Swift's thread pool and hung the run.
	SWIFT="$(SWIFT)" ./scripts/run-tests.sh $(BUILD_FLAGS)
	# Local time again in a zone with daylight-saving changes (CI machines run in UTC).
	TZ=Europe/London $(SWIFT) test --skip-build $(BUILD_FLAGS) --filter WallClockZoneTests

demo: release
	./scripts/demo.sh $(RELEASE_PATH)

bench: release
	./scripts/bench.sh $(RELEASE_PATH) $(BENCH_DIR)
	./scripts/bench-daemon.sh $(RELEASE_PATH)

fuzz: release
	python3 scripts/fuzz-socket.py --bin $(RELEASE_PATH)

eval: release
	[ -d $(EVAL_DATA)/wav ] || KEEP_DEBS=1 tools/training-data/fetch.sh $(EVAL_DATA)
	$(SWIFT) build -c release --product footstep-dataset $(BUILD_FLAGS)
	python3 tools/eval/footstep_eval.py --out $(EVAL_DIR) build --data $(EVAL_DATA)/wav
ifeq ($(LOCKBOX),1)
	python3 tools/eval/footstep_eval.py --out $(EVAL_DIR) score --lockbox --json $(EVAL_DIR)/lockbox.json
else
	python3 tools/eval/train_folds.py --out $(EVAL_DIR) --models $(EVAL_DIR)/models --no-bout-typers --negatives
	tools/.venv/bin/python tools/eval/frame_network.py --out $(EVAL_DIR) --work $(EVAL_DIR)/frames folds \
		--models $(EVAL_DIR)/models --negatives
	python3 tools/eval/footstep_eval.py --out $(EVAL_DIR) score --split train --models $(EVAL_DIR)/models \
		--analyze-option=--no-frame-network --predictions $(EVAL_DIR)/train-predictions
	python3 tools/eval/footstep_eval.py --out $(EVAL_DIR) score --split train-negatives --models $(EVAL_DIR)/models \
		--analyze-option=--no-frame-network --predictions $(EVAL_DIR)/train-negatives-predictions
	tools/.venv/bin/python tools/eval/frame_decision.py --out $(EVAL_DIR) --work $(EVAL_DIR)/frames attach \
		--predictions $(EVAL_DIR)/train-predictions --negative-predictions $(EVAL_DIR)/train-negatives-predictions \
		--frames $(EVAL_DIR)/models --models $(EVAL_DIR)/models
	python3 tools/eval/train_folds.py --out $(EVAL_DIR) --models $(EVAL_DIR)/models --bout-typers-only
	tools/.venv/bin/python tools/eval/output_calibration.py --out $(EVAL_DIR) attach --models $(EVAL_DIR)/models \
		--predictions $(EVAL_DIR)/calibration-predictions
	python3 tools/eval/footstep_eval.py --out $(EVAL_DIR) score --models $(EVAL_DIR)/models --json $(EVAL_DIR)/figures.json
endif

man completions: build
	./scripts/generate-completions.sh $(DEBUG_PATH) contrib

install: release
	./scripts/generate-completions.sh $(RELEASE_PATH) contrib
	PREFIX=$(PREFIX) ./scripts/install.sh $(RELEASE_PATH)

uninstall:
	PREFIX=$(PREFIX) ./scripts/uninstall.sh

# The Swift runtime is linked in: the package runs on a Debian 12 machine without a Swift toolchain.
STATIC_PATH := .build/static/release
deb:
	$(SWIFT) build -c release --static-swift-stdlib --scratch-path .build/static $(BUILD_FLAGS)
	BUILD_FLAGS="-c release --static-swift-stdlib --scratch-path .build/static $(BUILD_FLAGS)" \
		./scripts/generate-completions.sh $(STATIC_PATH) contrib
	./scripts/make-deb.sh $(STATIC_PATH) dist

# The package under a real systemd (booted in a PID namespace on a debootstrapped Debian 12 tree); slow, so not
# part of `make test`. It skips, saying why, where the machine cannot run it.
test-system: deb
	FOOTSTEPCTL=$(STATIC_PATH)/footstepctl ./scripts/system-test.sh "$$(ls -t dist/footstepd_*.deb | head -1)"

format:
	$(SWIFT) format --in-place --recursive Sources Tests Package.swift

clean:
	rm -rf .build
