# rtoslab: the README's commands.
#   make setup   install what is missing, build the plugin, install the CLI into .venv
#   make demo    set up, run the default suite, print the table, write a report
#   make test    set up, then the whole test suite (what .ci/run calls); lint = ruff, mypy,
#                and cargo fmt --check and clippy -D warnings on the plugin and on the Rust
#                firmware (scripts/lint_rust_firmware.py). After setup two chains run side
#                by side: lint then the plugin's cargo test, and pytest on two workers
#                (a test file at a time per worker); each chain's output is printed when
#                it ends (docs/performance.md "Test time").
.PHONY: setup demo test lint bench clean lint-steps test-rust test-py

RTOSLAB := .venv/bin/rtoslab
export PATH := $(HOME)/.cargo/bin:$(PATH)

setup:
	@scripts/setup.sh

demo: setup
	$(RTOSLAB) run --suite smoke
	$(RTOSLAB) run --suite kernel --kernel freertos

lint: setup
	@$(MAKE) --no-print-directory lint-steps

lint-steps:
	.venv/bin/ruff check src tests
	.venv/bin/mypy src
	cargo fmt --check --manifest-path plugin/Cargo.toml
	cargo clippy --release --locked --quiet --all-targets --manifest-path plugin/Cargo.toml -- -D warnings
	.venv/bin/python scripts/lint_rust_firmware.py

# A QEMU test with a tool missing fails instead of skipping (plugin tests and pytest).
# The plugin's tests build in cargo's test profile (unoptimised, overflow checks on): the
# QEMU ones load the release library `make setup` built (plugin/tests/common).
test: export RTOSLAB_REQUIRE_QEMU = 1
test: setup
	@$(MAKE) --no-print-directory -j 2 --output-sync=target test-rust test-py

# (cargo test and pytest without make's jobserver: the tools they start run as in a shell)
test-rust: lint-steps
	env -u MAKEFLAGS -u MFLAGS cargo test --locked --manifest-path plugin/Cargo.toml

test-py:
	env -u MAKEFLAGS -u MFLAGS .venv/bin/python -m pytest -q -n 2 --dist loadfile --no-loadscope-reorder --durations=15

bench: setup
	.venv/bin/python scripts/bench_speed.py

clean:
	rm -rf .cache rtoslab-results plugin/target
