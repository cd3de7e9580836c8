# rtoslab: the README's commands.
#   make setup   install what is missing, build the plugin, install the CLI into .venv
#   make demo    set up, run the default suite, print the table, write a report
#   make test    set up, then the whole test suite (what .ci/run calls); lint = ruff, mypy,
#                and cargo fmt --check and clippy -D warnings on the plugin and on the Rust
#                firmware (scripts/lint_rust_firmware.py)
.PHONY: setup demo test lint bench clean

RTOSLAB := .venv/bin/rtoslab
export PATH := $(HOME)/.cargo/bin:$(PATH)

setup:
	@scripts/setup.sh

demo: setup
	$(RTOSLAB) run --suite smoke
	$(RTOSLAB) run --suite kernel --kernel freertos

lint: setup
	.venv/bin/ruff check src tests
	.venv/bin/mypy src
	cargo fmt --check --manifest-path plugin/Cargo.toml
	cargo clippy --release --locked --quiet --all-targets --manifest-path plugin/Cargo.toml -- -D warnings
	.venv/bin/python scripts/lint_rust_firmware.py

# A QEMU test with a tool missing fails instead of skipping (plugin tests and pytest).
test: export RTOSLAB_REQUIRE_QEMU = 1
test: setup lint
	cargo test --release --locked --manifest-path plugin/Cargo.toml
	.venv/bin/python -m pytest -q

bench: setup
	.venv/bin/python scripts/bench_speed.py

clean:
	rm -rf .cache rtoslab-results plugin/target
