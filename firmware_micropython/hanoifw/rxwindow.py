"""The board's receive side of the host's reliable frames: which seq comes next, what a frame's seq means, and the
few frames that came ahead of a lost one, kept until it comes again (selective repeat).

A host session starts with SYNC: the next expected seq becomes SYNC's seq + 1 and the cumulative ack (the last
in-order seq taken) becomes SYNC's seq. A repeated SYNC with the same session token and seq is a duplicate and
does not reset the window again (a late duplicate must not make the board forget frames it already took).

A frame up to :data:`HELD_FRAMES` ahead of the expected one is kept (its line, CRC-checked already): when the lost
frame comes again, the kept ones after it are taken at once, so the host resends only what was lost. Each ACK and
PONG names the frames kept (:meth:`RxWindow.held_mask`).
"""

from hanoifw.protocol import SEQ_MOD

IN_ORDER = 0  # the next expected frame: act on it
DUPLICATE = 1  # taken before: ack again, do not act
AHEAD = 2  # a frame was lost before this one: keep it if there is room (see RxWindow.hold)
NO_SESSION = 3  # no SYNC yet in this boot
HELD_FRAMES = 8  # frames ahead of a lost one kept at most (each a line of at most protocol.MAX_FRAME_LEN bytes)


class RxWindow:
    """Receive window of the board: expected seq, session token, and counters of duplicates and gaps."""

    def __init__(self) -> None:
        self.has_session = False
        self.expected_seq = 0
        self.session_token = ""
        self.sync_seq = -1
        self.duplicates = 0
        self.out_of_order = 0
        self.ack = SEQ_MOD - 1  # the cumulative ack: seq of the last frame taken in order (65535 before a SYNC)
        self.held: "dict[int, bytes]" = {}  # seq -> line of a frame that came ahead of the expected one

    def sync(self, seq: int, token: str) -> bool:
        """Start a host session at SYNC ``seq`` with ``token``; False (and no reset) for a duplicate SYNC."""
        if self.has_session and token and token == self.session_token and seq == self.sync_seq:
            return False
        self.has_session = True
        self.session_token = token
        self.sync_seq = seq
        self.expected_seq = (seq + 1) % SEQ_MOD
        self.ack = seq
        self.held.clear()
        return True

    def classify(self, seq: int) -> int:
        """Return IN_ORDER, DUPLICATE, AHEAD or NO_SESSION for a reliable frame with ``seq``."""
        if not self.has_session:
            return NO_SESSION
        distance = (seq - self.expected_seq) % SEQ_MOD
        if distance == 0:
            return IN_ORDER
        if distance >= SEQ_MOD // 2:
            self.duplicates += 1
            return DUPLICATE
        self.out_of_order += 1
        return AHEAD

    def take(self) -> None:
        """Mark the expected frame as taken: the next seq is expected and acked cumulatively."""
        self.ack = self.expected_seq
        self.expected_seq = (self.expected_seq + 1) % SEQ_MOD

    def hold(self, seq: int, line: bytes) -> None:
        """Keep the line of the AHEAD frame ``seq`` if it is at most HELD_FRAMES ahead and there is room."""
        held = self.held
        if (seq - self.expected_seq) % SEQ_MOD <= HELD_FRAMES and (seq in held or len(held) < HELD_FRAMES):
            held[seq] = line

    def take_held(self) -> "bytes | None":
        """The kept line of the frame now expected (forgotten here), or None if none is kept."""
        return self.held.pop(self.expected_seq, None)

    def held_mask(self) -> int:
        """The frames kept, as bits: bit i set when seq ``ack + 2 + i`` is kept (``ack + 1`` is the one missing)."""
        mask = 0
        for seq in self.held:
            mask |= 1 << ((seq - self.expected_seq - 1) % SEQ_MOD)
        return mask
