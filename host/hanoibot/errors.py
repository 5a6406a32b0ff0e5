"""The one error hierarchy of hanoibot.

Every error the package raises on purpose derives from :class:`HanoiError`. Leaves also derive from the
builtin that fits, so callers who do not know hanoibot can still catch ``ValueError`` or ``TimeoutError``.
Messages name the bad value and say what was expected.
"""


class HanoiError(Exception):
    """Root of every hanoibot error."""


# --- puzzle and planning -------------------------------------------------------------------------------
class StateError(HanoiError, ValueError):
    """A state string or state is malformed or breaks the rules (names the character, disk or peg)."""


class IllegalMove(HanoiError, ValueError):
    """A move breaks the rules: empty source peg, larger disk onto smaller, forbidden peg pair."""


class PlanError(HanoiError, ValueError):
    """No plan can be made for the request (unreachable goal, bad index into a plan, unsupported rules)."""


class SearchLimitExceeded(PlanError):
    """The exact search needed more states than its limit allows."""


# --- configuration -------------------------------------------------------------------------------------
class ConfigError(HanoiError, ValueError):
    """The robot config is invalid; the message names the key and the section."""


class UnreachableError(ConfigError):
    """A peg or stack level lies outside the arm's workspace."""


# --- link ----------------------------------------------------------------------------------------------
class LinkError(HanoiError, OSError):
    """Something went wrong on the serial link. ``frame_trace``: the last frames on the wire when the link raised
    it, one line each (``time_s > frame`` written, ``time_s < frame`` read; see hanoibot.link.trace), or empty."""

    frame_trace: tuple[str, ...] = ()


class PortError(LinkError):
    """The port does not exist, is busy, or cannot be opened."""


class PortBusy(PortError):
    """Another process holds the port (the message names it: pid and command line)."""

    def __init__(self, message: str, *, holder: object = None) -> None:
        super().__init__(message)
        self.holder = holder


class SessionTakenOver(LinkError):
    """Another program started its own session with the board while this one was using it."""


class BadCommand(LinkError, ValueError):
    """A command cannot be sent as given (cmd id not increasing, wrong channel count, bad duration)."""


class LinkTimeout(LinkError, TimeoutError):
    """A reply did not arrive in time."""


class LinkLost(LinkTimeout):
    """The board has been silent for longer than the silence bound."""


class ProtocolMismatch(LinkError):
    """The board speaks another protocol version."""


class BoardReset(LinkError):
    """The board's boot id changed: it was reset; outstanding commands have unknown fate."""

    def __init__(
        self, message: str, *, old_boot_id: str = "", new_boot_id: str = "", unknown_cmd_ids: tuple[int, ...] = ()
    ) -> None:
        super().__init__(message)
        self.old_boot_id = old_boot_id
        self.new_boot_id = new_boot_id
        self.unknown_cmd_ids = unknown_cmd_ids


class BoardError(LinkError):
    """The board answered a command with ERROR (code and text kept)."""

    def __init__(self, message: str, *, code: str = "", cmd_id: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.cmd_id = cmd_id


# --- pictures ------------------------------------------------------------------------------------------
class RenderError(HanoiError, ValueError):
    """A picture cannot be drawn from what was given (no frames, a non-positive frame time)."""


# --- running -------------------------------------------------------------------------------------------
class RunFault(HanoiError, RuntimeError):
    """The run stopped in the fault state (dropped disk, collision, e-stop, lost link)."""


class JournalError(HanoiError, ValueError):
    """A journal is not a journal, or belongs to another robot config or plan."""


class OutputFileError(HanoiError, ValueError):
    """A file a command must write (report, journal) cannot be written at the path given (names the path)."""
