"""The freertos-smp port (firmware/ports/freertos-smp): what it declares, the option
combinations and targets it refuses before anything is built, and the catalog keys it
brought (port.toml ``min_cores`` and ``[[rule]]``). The port running on two cores is
tests/e2e/test_freertos_smp.py."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from rtoslab.builder.cmake import render_template
from rtoslab.builder.config import BuildConfig
from rtoslab.catalog import Catalog
from rtoslab.paths import firmware_root
from rtoslab.records import RtoslabError

CATALOG = Catalog()  # the checkout's folders alone

PORT = firmware_root() / "ports" / "freertos-smp"


def _config(target: str = "mps2-an521", **options: object) -> BuildConfig:
    return BuildConfig(catalog=CATALOG,
                       target=target, kernel="freertos-smp", kernel_options=tuple(options.items()))


def test_the_port_is_one_folder_of_our_own_files() -> None:
    names = {p.name for p in PORT.iterdir() if p.is_file()}
    assert {"port.toml", "port.cmake", "FreeRTOSConfig.h.in", "lab_port_caps.h",
            "portmacro.h", "port_smp.c", "port_smp_asm.S", "README.md"} <= names
    # The lab/port.h layer and the object types are the single-core port's files, which
    # this port declares it builds on (port.toml base), compiled again, not copies.
    assert CATALOG.get_kernel("freertos-smp").base_path == CATALOG.get_kernel("freertos").path
    assert "${LAB_PORT_BASE_DIR}/port_freertos.c" in (PORT / "port.cmake").read_text()
    assert not list(PORT.glob("port_freertos*.c")) and not (PORT / "lab_port_types.h").exists()
    # No FreeRTOS portable file is used: the kernel's portable/GCC folders stay out.
    assert "portable/GCC" not in (PORT / "port.cmake").read_text()


def test_capabilities_are_the_single_core_ports_plus_smp() -> None:
    smp, single = CATALOG.get_kernel("freertos-smp"), CATALOG.get_kernel("freertos")
    assert smp.capabilities["LAB_HAS_SMP"] is True
    assert single.capabilities["LAB_HAS_SMP"] is False
    assert {k: v for k, v in smp.capabilities.items() if k != "LAB_HAS_SMP"} == \
        {k: v for k, v in single.capabilities.items() if k != "LAB_HAS_SMP"}
    assert smp.min_cores == 2 and single.min_cores == 1


def test_portmacro_defines_every_macro_the_smp_kernel_requires() -> None:
    """FreeRTOS.h V11.2.0 stops an SMP build without these (and falls back to defaults
    that would be wrong for two cores for the rest)."""
    text = (PORT / "portmacro.h").read_text()
    for macro in ("portGET_CORE_ID", "portYIELD_CORE", "portSET_INTERRUPT_MASK", "portCLEAR_INTERRUPT_MASK",
                  "portGET_TASK_LOCK", "portRELEASE_TASK_LOCK", "portGET_ISR_LOCK", "portRELEASE_ISR_LOCK",
                  "portENTER_CRITICAL_FROM_ISR", "portEXIT_CRITICAL_FROM_ISR", "portCRITICAL_NESTING_IN_TCB",
                  "portSET_INTERRUPT_MASK_FROM_ISR", "portCLEAR_INTERRUPT_MASK_FROM_ISR", "portYIELD",
                  "portEND_SWITCHING_ISR", "portHAS_STACK_OVERFLOW_CHECKING"):
        assert re.search(rf"#define {macro}\b", text), macro
    # The lock signatures take the core (V11.2.0: portGET_TASK_LOCK( xCoreID )).
    assert re.search(r"#define portGET_TASK_LOCK\(xCoreID\)", text)


def test_the_config_template_renders_with_the_defaults_and_each_option_is_used() -> None:
    kernel = CATALOG.get_kernel("freertos-smp")
    own = (PORT / "FreeRTOSConfig.h.in").read_text()
    out = render_template(own, _config().resolved_kernel_options(), "FreeRTOSConfig.h.in")
    assert "@" not in out and '#include "FreeRTOSConfig_shared.h"' in out
    # the shared settings come from the port it builds on, rendered with this port's options
    assert kernel.base_path is not None
    text = own + (kernel.base_path / "FreeRTOSConfig_shared.h.in").read_text()
    assert "#define configNUMBER_OF_CORES 2" in out
    assert "#define configUSE_CORE_AFFINITY 1" in out
    assert "#define labSMP_START_CORES 2" in out
    assert "#define labSMP_ELIDE_LOCKS 0" in out
    for option in kernel.options:
        assert f"@{option}@" in text, option


@pytest.mark.parametrize("option", ["labSMP_ELIDE_LOCKS", "labSMP_ELIDE_CORE_ID"])
@pytest.mark.parametrize("value", [True, "true", 1])
def test_eliding_with_two_cores_started_is_refused_in_one_line(option: str, value: object) -> None:
    with pytest.raises(RtoslabError) as e:
        _config(**{option: value}).validate()
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith(f"kernel freertos-smp: {option}=true needs labSMP_START_CORES=1 (it is 2): ")
    assert "only safe when one core runs the scheduler" in msg
    assert msg.endswith("add --option labSMP_START_CORES=1")


@pytest.mark.parametrize("cores", [0, 3])
def test_a_core_count_the_port_cannot_start_is_refused_before_building(cores: int) -> None:
    with pytest.raises(RtoslabError) as e:
        _config(labSMP_START_CORES=cores).validate()
    assert str(e.value) == (f"kernel freertos-smp: labSMP_START_CORES={cores} is not a value this port "
                            "supports (port.toml [values]): use --option labSMP_START_CORES=1 or "
                            "labSMP_START_CORES=2")
    _config(labSMP_START_CORES=1).validate()
    _config(labSMP_START_CORES=2).validate()


def test_values_must_name_an_option_and_list_values(tmp_path: Path) -> None:
    cases = (("[values]\nlabSMP_START_CORZ = [1]\n",
              r"key 'values\.labSMP_START_CORZ' is not in \[options\]"),
             ("[values]\nlabSMP_START_CORES = []\n", r"key 'values\.labSMP_START_CORES' is empty"))
    for table, error in cases:
        folder = _port_copy(tmp_path / str(len(error)), table)
        with pytest.raises(RtoslabError, match=error):
            _ = Catalog().with_paths(port=[folder]).kernels


def test_eliding_with_one_core_started_is_accepted_and_renders_as_1() -> None:
    config = _config(labSMP_START_CORES=1, labSMP_ELIDE_LOCKS="true", labSMP_ELIDE_CORE_ID=1)
    config.validate()
    opts = config.resolved_kernel_options()
    assert opts["labSMP_ELIDE_LOCKS"] is True and opts["labSMP_ELIDE_CORE_ID"] is True
    out = render_template((PORT / "FreeRTOSConfig.h.in").read_text(), opts, "FreeRTOSConfig.h.in")
    assert "#define labSMP_ELIDE_LOCKS 1" in out and "#define labSMP_ELIDE_CORE_ID 1" in out
    # "true" and True are one configuration: one image, one identity.
    assert config.image_key() == _config(labSMP_START_CORES=1, labSMP_ELIDE_LOCKS=True,
                                         labSMP_ELIDE_CORE_ID=True).image_key()


def test_a_one_core_target_is_refused_naming_one_that_works() -> None:
    for target in ("mps2-an505", "mps2-an385"):
        with pytest.raises(RtoslabError) as e:
            _config(target=target).validate()
        assert str(e.value) == (f"kernel freertos-smp needs 2 cores (its port.toml min_cores) but target "
                                f"{target} has 1: use --target mps2-an521")
    _config().validate()  # mps2-an521 has two


def _port_copy(tmp_path: Path, toml_tail: str) -> Path:
    folder = tmp_path / "smp-copy"
    shutil.copytree(PORT, folder)
    text = (folder / "port.toml").read_text()
    (folder / "port.toml").write_text(text.split("[[rule]]")[0] + toml_tail + "\n[options]"
                                      + text.split("[options]")[1])
    return folder


@pytest.mark.parametrize(("tail", "error"), [
    ('[[rule]]\nwhen = { labSMP_ELIDE_LOCKZ = true }\nrequire = { labSMP_START_CORES = 1 }\nreason = "x"\n',
     r"key 'rule\[0\]\.when' names 'labSMP_ELIDE_LOCKZ', which is not in \[options\]"),
    ('[[rule]]\nwhen = {}\nrequire = { labSMP_START_CORES = 1 }\nreason = "x"\n',
     r"key 'rule\[0\]\.when' is empty"),
    ('[[rule]]\nwhen = { labSMP_ELIDE_LOCKS = true }\nrequire = { labSMP_START_CORES = 1 }\n',
     r"key 'rule\[0\]\.reason' is missing: it must be a string"),
])
def test_a_broken_rule_is_refused_naming_the_key(tmp_path: Path, tail: str, error: str) -> None:
    folder = _port_copy(tmp_path, tail)
    with pytest.raises(RtoslabError, match=error):
        _ = Catalog().with_paths(port=[folder]).kernels


@pytest.mark.parametrize("cores", [0, 33])
def test_min_cores_is_checked_as_a_benchmark_s_is(tmp_path: Path, cores: int) -> None:
    """A port's min_cores takes the range a bench.toml's does (catalog.common.check_min_cores):
    a port asking for more cores than any target may have is refused too."""
    folder = _port_copy(tmp_path, "")
    toml = folder / "port.toml"
    toml.write_text(toml.read_text().replace("min_cores = 2", f"min_cores = {cores}"))
    with pytest.raises(RtoslabError, match=rf"port.toml: key 'min_cores' is {cores}: give the processor "
                                           r"cores the kernel needs, 1..32$"):
        _ = Catalog().with_paths(port=[folder]).kernels
