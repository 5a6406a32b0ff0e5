"""Shared pytest set-up: hypothesis profiles (``ci`` is derandomized so CI runs are repeatable), and the link
transports the hardware-facing tests run on: ``sim://``, a pty to ``hanoibot emulate`` and the virtual Pico
(``vpico://``, marked slow and vpico: make test runs it alone, after the parallel run) always, and a real
board when ``--hil-port /dev/ttyACM0`` is given (the option comes from the hanoibot pytest plugin,
:mod:`hanoibot.testing`, which the package registers as a pytest11 entry point)."""

import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest
import vpico_checks
from hanoibot.ops.ports import offer_port_schemes
from hypothesis import HealthCheck, settings
from link_checks import Transport, open_transport

# The tests compose the program: they open sim://, vpico:// and feetech:// ports (the link imports neither package).
offer_port_schemes()

settings.register_profile("dev", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(autouse=True)
def port_locks_of_this_test(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each test (and the processes it starts) takes port locks in a runtime dir of its own: tests running in
    parallel on ``sim://`` must not see each other as the port's holder. Short, so control socket paths fit."""
    root = tempfile.mkdtemp(prefix="hbrun-")
    monkeypatch.setenv("XDG_RUNTIME_DIR", root)
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(autouse=True)
def user_settings_of_this_test(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> str:
    """Each test (and the processes it starts) sees a user who set no defaults: an empty config folder of its own
    (``$XDG_CONFIG_HOME``) and no ``HANOIBOT_PORT`` / ``HANOIBOT_CONFIG``, so the machine's own settings never
    choose a test's port or robot."""
    root = str(tmp_path_factory.mktemp("config"))
    monkeypatch.setenv("XDG_CONFIG_HOME", root)
    monkeypatch.delenv("HANOIBOT_PORT", raising=False)
    monkeypatch.delenv("HANOIBOT_CONFIG", raising=False)
    return root


@pytest.fixture(autouse=True)
def state_folder_of_this_test(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> str:
    """Each test (and the processes it starts) journals its runs into a state folder of its own
    (``$XDG_STATE_HOME``): runs journal by default, and never into the user's own folder."""
    root = str(tmp_path_factory.mktemp("state"))
    monkeypatch.setenv("XDG_STATE_HOME", root)
    return root


def hil_port(config: pytest.Config) -> str | None:
    """The real board's port, or None (no option, or a sim:// URL, which the sim transport covers already)."""
    value = config.getoption("--hil-port", default=None)
    return None if value is None or str(value).startswith("sim://") else str(value)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run every test that takes ``link_transport`` once per transport."""
    if "link_transport" in metafunc.fixturenames:
        vpico = pytest.param("vpico", marks=[pytest.mark.slow, pytest.mark.vpico])
        kinds: list[object] = ["sim", "pty", vpico]
        if hil_port(metafunc.config) is not None:
            kinds.append("hil")
        metafunc.parametrize("link_transport", kinds, indirect=True)


@pytest.fixture
def link_transport(request: pytest.FixtureRequest) -> Iterator[Transport]:
    """A :class:`link_checks.Transport` for the parametrized kind (sim, pty, vpico or hil)."""
    transport = open_transport(request.param, hil_port=hil_port(request.config))
    yield transport
    transport.close()


@pytest.fixture
def port_url(link_transport: Transport) -> str:
    """The port URL of the transport under test."""
    return link_transport.url


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Each test starts with no virtual-Pico URL made."""
    vpico_checks.URLS_MADE.clear()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[pytest.TestReport]:
    """A failing virtual-Pico test on chip time names the URLs that replay it exactly (their seeds included)."""
    report: pytest.TestReport = yield
    if report.failed and vpico_checks.URLS_MADE:
        report.sections.append(("replay on the virtual Pico", "\n".join(dict.fromkeys(vpico_checks.URLS_MADE))))
    return report
