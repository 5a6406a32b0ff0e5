"""The board's send buffer (hanoifw.txframes) writes exactly what protocol.encode writes. Also run under
MicroPython."""

from hanoifw import protocol as p
from hanoifw.txframes import TxFrames


def test_a_frame_formatted_in_place_is_the_codec_s_frame():
    tx = TxFrames(4)
    tx.frame(b"DONE,65535,7,1073741823")
    tx.frame(b"ACK,0,0,8,12")
    tx.add(p.encode(p.STATUS, 3, 4, ["x", 5]))
    tx.frame(b"PONG,2,1,")
    expected = (
        p.encode(p.DONE, 65535, 7, [1073741823])
        + p.encode(p.ACK, 0, 0, [8, 12])
        + p.encode(p.STATUS, 3, 4, ["x", 5])
        + p.encode(p.PONG, 2, 1, [""])
    )
    assert tx.is_full
    assert bytes(tx.take()) == expected
    assert (tx.frames, len(tx.take())) == (0, 0), "take starts afresh"


def test_the_buffer_holds_max_frames_of_the_longest_size():
    tx = TxFrames(2)
    longest = p.encode(p.ERROR, 1, 1, ["x" * (p.MAX_FRAME_LEN - 20)])
    assert len(longest) == p.MAX_FRAME_LEN
    tx.add(longest)
    tx.add(longest)
    assert tx.is_full and bytes(tx.take()) == longest + longest
