"""Stopping and streaming in the `softalign` Python module, on the shipped en->fr file.

- a 900 kB line: cancel() from another thread after 100 ms raises softalign.Cancelled,
  timeout_ms=100 raises softalign.DeadlineExceeded, Ctrl-C (SIGINT) raises
  KeyboardInterrupt; each promptly (the figure is printed, the bound asserted is
  generous), and the same translator then translates a short line as before;
- translate_iter: the pieces (beam 1) and the sentences streamed equal the result;
  leaving the loop early stops the call.

ctest runs it with the module on PYTHONPATH (as test_bindings.py).
"""
import os
import signal
import threading
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODEL = os.path.join(ROOT, "models", "en-fr", "en-fr.int8.softalign")

try:
    import softalign
except ImportError:
    if os.environ.get("SOFTALIGN_BINDINGS_REQUIRED") == "1":
        raise
    pytest.skip("the softalign module is not built (pybind11-dev, python3-dev)", allow_module_level=True)

SENTENCE = "This package contains the documentation. A simple text editor with many plugins. "
HUGE = (SENTENCE * (900 * 1024 // len(SENTENCE))).strip()
SHORT = "A simple text editor."
BOUND_S = 5.0  # generous: a loaded machine must not fail it; the printed figure is the measure


@pytest.fixture(scope="module")
def model():
    return softalign.Model.load(MODEL)


def timed(fn):
    t0 = time.monotonic()
    try:
        fn()
    except BaseException as e:  # noqa: B036 (KeyboardInterrupt is what is measured)
        return time.monotonic() - t0, e
    return time.monotonic() - t0, None


def cancel_until_done(tr, done):
    """cancel() stops the calls running when it is made; on a loaded machine the
    call may start after the first one (its thread can wait past 100 ms for a
    core), so after 100 ms it is repeated until the call has returned."""
    time.sleep(0.1)
    while not done.is_set():
        tr.cancel()
        time.sleep(0.01)


@pytest.mark.parametrize("beam", [1, 4])
def test_cancel_from_another_thread(model, beam):
    tr = softalign.Translator(model, beam=beam)
    expected = tr.translate(SHORT)
    done = threading.Event()
    canceller = threading.Thread(target=cancel_until_done, args=(tr, done))
    canceller.start()
    seconds, error = timed(lambda: tr.translate(HUGE))
    done.set()
    canceller.join()
    print(f"stop: Python cancel() at 100 ms, beam {beam}: returned at {seconds * 1000:.1f} ms")
    assert isinstance(error, softalign.Cancelled), error
    assert isinstance(error, softalign.Error)
    assert str(error) == "cancelled: cancel() called"
    assert seconds < 0.1 + BOUND_S
    assert tr.translate(SHORT) == expected


def test_deadline(model):
    tr = softalign.Translator(model, beam=4)
    expected = tr.translate(SHORT)
    seconds, error = timed(lambda: tr.translate(HUGE, timeout_ms=100))
    print(f"stop: Python timeout_ms=100: returned at {seconds * 1000:.1f} ms")
    assert isinstance(error, softalign.DeadlineExceeded), error
    assert str(error) == "deadline_exceeded: past timeout_ms"
    assert seconds < BOUND_S
    assert tr.translate(SHORT) == expected
    # The translator's option: every call's deadline; a list's items each get theirs.
    timed_tr = softalign.Translator(model, beam=4, timeout_ms=100)
    assert softalign.option_defaults()["timeout_ms"] is None
    assert timed_tr.translate([SHORT, SHORT]) == [expected, expected]
    out = timed_tr.translate([SHORT, HUGE])  # one deadline for the call: tokenising HUGE may outlast it
    assert out[0] in (expected,) or isinstance(out[0], softalign.DeadlineExceeded)
    assert isinstance(out[1], softalign.DeadlineExceeded)
    [item] = timed_tr.translate_batch([HUGE])
    assert isinstance(item, softalign.DeadlineExceeded)
    with pytest.raises(softalign.Error, match="timeout_ms"):
        tr.translate(SHORT, timeout_ms=-1)


def test_keyboard_interrupt_stops_a_long_call(model):
    tr = softalign.Translator(model, beam=4)
    expected = tr.translate(SHORT)
    timer = threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    seconds, error = timed(lambda: tr.translate(HUGE))
    timer.join()
    print(f"stop: Python Ctrl-C (SIGINT) at 100 ms: KeyboardInterrupt at {seconds * 1000:.1f} ms")
    assert isinstance(error, KeyboardInterrupt), error
    assert seconds < 0.1 + BOUND_S
    assert tr.translate(SHORT) == expected


def joined(sentences):
    return " ".join(s for s in sentences if s)


def test_translate_iter_equals_the_result(model):
    # A short max_source_tokens splits the text into its three sentences.
    tr = softalign.Translator(model, beam=1, max_source_tokens=16)
    text = "This package contains the documentation. A simple text editor. Tools to manage the files of a project."
    stream = tr.translate_iter(text)
    events = list(stream)
    pieces = [e.text for e in events if e.kind == "piece"]
    sentences = [e.text for e in events if e.kind == "sentence"]
    assert [e.index for e in events if e.kind == "sentence"] == [0, 1, 2]
    result = stream.result
    assert result is not None
    assert pieces == result.hypotheses[0].pieces
    assert joined(sentences) == result.hypotheses[0].text == tr.translate(text)
    # Beam search: the sentences only.
    beam = softalign.Translator(model, beam=4)
    events = list(beam.translate_iter(SHORT))
    assert [(e.kind, e.text) for e in events] == [("sentence", beam.translate(SHORT))]


def test_leaving_the_loop_stops_the_call(model):
    tr = softalign.Translator(model, beam=1)
    expected = tr.translate(SHORT)
    got = []
    for e in tr.translate_iter(HUGE):
        got.append(e)
        if len(got) == 3:
            t0 = time.monotonic()
            break  # the iterator is dropped: the call stops, and its thread is joined
    seconds = time.monotonic() - t0
    print(f"stop: Python translate_iter, break after 3 pieces: the call stopped {seconds * 1000:.1f} ms later")
    assert [e.kind for e in got] == ["piece"] * 3
    assert seconds < BOUND_S
    assert tr.translate(SHORT) == expected
    # close() and the context manager do the same; the result is then None.
    with tr.translate_iter(HUGE) as stream:
        next(stream)
        stream.close()
        assert list(stream) == []
        assert stream.result is None
    assert tr.translate(SHORT) == expected


def test_translate_iter_raises_the_calls_error(model):
    tr = softalign.Translator(model, beam=1)
    with pytest.raises(softalign.DeadlineExceeded):
        for _ in tr.translate_iter(HUGE, timeout_ms=100):
            pass
    with pytest.raises(softalign.Error, match="invalid_utf8"):
        list(tr.translate_iter("x\ud800"))
