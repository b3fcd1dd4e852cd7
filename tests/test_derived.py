"""storage/derived.py: a state derived from files is used while they are unchanged, extended
when they only grew, made again otherwise, and never kept for files that changed while it
was being made."""

from __future__ import annotations

import dataclasses
import marshal
import tracemalloc
import types
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from vm_memory_oracle.storage import derived, snapshot


@pytest.fixture(autouse=True)
def new_process():
    snapshot.forget_memory()
    yield
    snapshot.forget_memory()


@dataclasses.dataclass
class Lines:
    lines: list[str]


def lines_state(tmp_path: Path, source: Path, layout: int = 1) -> derived.Derived[Lines]:
    return derived.Derived(
        tmp_path / "cache" / "lines.marshal",
        layout=layout,
        sources=(source,),
        encode=lambda value: value.lines,
        decode=Lines,
    )


def counted(source: Path, calls: list[str]):
    def make(key):
        calls.append("make")
        return Lines(source.read_text().splitlines())

    def extend(old_key, earlier: Lines, key):
        calls.append("extend")
        lines = source.read_text().splitlines()
        if lines[: len(earlier.lines)] != earlier.lines:
            return None  # not an append: made again
        return Lines(lines)

    return make, extend


def test_a_state_is_made_once_then_held_then_extended_then_made_again(tmp_path):
    source = tmp_path / "source.txt"
    source.write_text("a\nb\n")
    calls: list[str] = []
    make, extend = counted(source, calls)

    first = derived.brought_in_step(lines_state(tmp_path, source), make, extend)
    assert first.lines == ["a", "b"] and calls == ["make"]
    again = derived.brought_in_step(lines_state(tmp_path, source), make, extend)
    assert again is first and calls == ["make"]  # held: the same object, nothing made

    snapshot.forget_memory()  # a new process reads what was kept on disk
    from_disk = derived.brought_in_step(lines_state(tmp_path, source), make, extend)
    assert from_disk == first and calls == ["make"]

    with open(source, "a") as handle:
        handle.write("c\n")
    grown = derived.brought_in_step(lines_state(tmp_path, source), make, extend)
    assert grown.lines == ["a", "b", "c"] and calls == ["make", "extend"]

    source.write_text("x\n")
    remade = derived.brought_in_step(lines_state(tmp_path, source), make, extend)
    assert remade.lines == ["x"] and calls == ["make", "extend", "extend", "make"]


def test_a_state_made_again_is_made_without_the_earlier_one_held(tmp_path):
    """When the earlier state cannot be extended, it is let go before the new one is made
    (the process holds one of them at a time, not both), and read from its file no more."""
    import gc
    import weakref

    source = tmp_path / "source.txt"
    source.write_text("a\nb\n")
    state = lines_state(tmp_path, source)
    first = derived.brought_in_step(state, *counted(source, []))
    gone = weakref.ref(first)
    del first
    source.write_text("x\n")
    held_while_made: list[object] = []

    def make(key):
        gc.collect()
        held_while_made.append(gone())
        held_while_made.append(snapshot.decoded(state.cache))
        return Lines(source.read_text().splitlines())

    remade = derived.brought_in_step(state, make, counted(source, [])[1])
    assert remade.lines == ["x"] and held_while_made == [None, None]
    assert derived.brought_in_step(state, make, counted(source, [])[1]) is remade


def test_a_state_of_another_layout_is_neither_used_nor_extended(tmp_path):
    source = tmp_path / "source.txt"
    source.write_text("a\n")
    calls: list[str] = []
    make, extend = counted(source, calls)
    derived.brought_in_step(lines_state(tmp_path, source, layout=1), make, extend)
    snapshot.forget_memory()
    with open(source, "a") as handle:
        handle.write("b\n")
    state = derived.brought_in_step(lines_state(tmp_path, source, layout=2), make, extend)
    assert state.lines == ["a", "b"] and calls == ["make", "make"]


def test_a_state_made_while_its_source_changed_is_not_kept(tmp_path):
    source = tmp_path / "source.txt"
    source.write_text("a\n")

    def make(key):
        made = Lines(source.read_text().splitlines())
        source.write_text("a\nb\n")  # another process writes meanwhile
        return made

    state = lines_state(tmp_path, source)
    assert derived.brought_in_step(state, make).lines == ["a"]
    assert state.held(state.key()) is None  # the next command makes it for the new file
    assert not (tmp_path / "cache" / "lines.marshal").exists()


def test_without_its_required_source_nothing_is_kept(tmp_path):
    state = lines_state(tmp_path, tmp_path / "missing.txt")
    assert state.key() is None
    assert derived.brought_in_step(state, lambda key: Lines([])).lines == []
    assert not (tmp_path / "cache").exists()


def test_the_layout_follows_the_record_and_the_code_that_makes_it(tmp_path):
    @dataclasses.dataclass
    class Wider:
        lines: list[str]
        count: int

    maker = tmp_path / "maker.py"
    maker.write_text("X = 1\n")
    module = types.ModuleType("maker")
    module.__file__ = str(maker)
    layout = derived.layout_of(Lines, (module,))
    assert derived.layout_of(Lines, (module,)) == layout
    assert derived.layout_of(Wider, (module,)) != layout  # another shape

    edited = tmp_path / "edited.py"
    edited.write_text("X = 2\n")
    other = types.ModuleType("maker")
    other.__file__ = str(edited)
    assert derived.layout_of(Lines, (other,)) != layout  # other code


def test_changes_name_what_an_index_removes_and_adds():
    known = {1: "a", 2: "b", 3: "c"}
    wanted = {2: ("b", "text"), 3: ("C", "text"), 4: ("d", "text")}
    gone, new = derived.changes(known, wanted, lambda want: want[0])
    assert (gone, new) == ([1, 3], [3, 4])


@settings(max_examples=200, deadline=None)
@given(
    known=st.lists(st.tuples(st.integers(0, 6), st.integers(0, 3)), max_size=12),
    wanted=st.lists(st.tuples(st.integers(0, 6), st.integers(0, 3)), max_size=12),
    big=st.integers(0, 2**64 - 1),
)
def test_column_changes_are_the_pairs_of_either_side_the_other_lacks(known, wanted, big):
    """column_changes names the places of the (id, value) pairs of each side that the other
    side does not hold, repeats and all, whatever the 64-bit numbers."""
    import numpy as np

    def columns(pairs):
        ids = np.array([big if number == 6 else number for number, _ in pairs], dtype=np.uint64)
        values = np.array([big ^ value for _, value in pairs], dtype=np.uint64)
        return ids, values

    held, want = columns(known), columns(wanted)
    gone, new = derived.column_changes(*held, *want)
    held_pairs = list(zip(held[0].tolist(), held[1].tolist()))
    wanted_pairs = list(zip(want[0].tolist(), want[1].tolist()))
    assert gone.tolist() == [n for n, pair in enumerate(held_pairs) if pair not in wanted_pairs]
    assert new.tolist() == [n for n, pair in enumerate(wanted_pairs) if pair not in held_pairs]


def test_a_pass_over_every_file_holds_what_it_loaded_only_while_it_runs(tmp_path):
    """snapshot.only_while: what the block loads or saves is let go at its end and read
    from disk again next time; what the process held before stays held, and one it held
    but the block replaced is let go too (its disk copy is the newer)."""
    held, loaded, replaced = (tmp_path / name for name in ("held", "loaded", "replaced"))
    snapshot.save(held, ("h",), ["held before"])
    snapshot.save(replaced, ("r", 1), ["old"])
    snapshot.save(loaded, ("l",), ["on disk"])
    snapshot.let_go(loaded)
    with snapshot.only_while():
        assert snapshot.load(loaded, ("l",)) == ["on disk"]
        assert snapshot.load(loaded, ("l",), disk=False) == ["on disk"]  # held inside
        snapshot.save(replaced, ("r", 2), ["new"])
        assert snapshot.load(held, ("h",), disk=False) == ["held before"]
    assert snapshot.load(loaded, ("l",), disk=False) is None
    assert snapshot.load(replaced, ("r", 2), disk=False) is None
    assert snapshot.load(replaced, ("r", 2)) == ["new"]  # read from disk again
    assert snapshot.load(held, ("h",), disk=False) == ["held before"]


@pytest.mark.parametrize(
    "payload", [[], [b""], [b"x" * 70_000, 3, b"\x00\xff", None], (b"ab", [1.5, "名"])]
)
def test_a_packed_payload_is_written_a_value_at_a_time_as_marshal_reads_it(tmp_path, payload):
    """A streamed save writes each bytes value where it lies, not one marshal.dumps of
    them all; the file is still marshal's form of (format, key, payload), read back the same
    whole or as it goes, by this process and the next."""
    cache = tmp_path / "packed.marshal"
    key = ("k", 1, (2, 3))
    snapshot.save(cache, key, payload, streamed=True)
    assert marshal.loads(cache.read_bytes()) == (snapshot.FORMAT, key, payload)
    snapshot.forget_memory()
    for streamed in (False, True):
        assert snapshot.stored(cache, streamed=streamed) == (key, payload)
    assert snapshot.load(cache, key, streamed=True) == payload


def test_a_packed_payload_is_saved_without_a_copy_of_it(tmp_path):
    """What a streamed save allocates while it writes is a few small pieces, not a second
    copy of the payload; a save that is not streamed makes one."""
    payload = [b"x" * 20_000_000, b"y" * 1_000]
    peaks = {}
    for streamed in (False, True):
        tracemalloc.start()
        try:
            snapshot.save(tmp_path / f"{streamed}.marshal", ("k",), payload, streamed=streamed)
            peaks[streamed] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert peaks[False] > 20_000_000 > 1_000_000 > peaks[True]


def test_the_key_of_a_packed_state_is_read_without_its_payload(tmp_path, monkeypatch):
    """A state written a value at a time has its key read alone: whether it is in step
    (Derived.saved), and whether an earlier one is worth reading to extend it, are told
    without reading it; a state written otherwise, or damaged, is told by reading it."""
    source = tmp_path / "source.txt"
    source.write_text("a\nb\n")
    state = dataclasses.replace(
        lines_state(tmp_path, source), streamed=True, encode=lambda value: [b"x" * 4096]
    )
    state = dataclasses.replace(state, decode=lambda plain: Lines(["decoded"]))
    key = state.key()
    state.keep(key, Lines(["a", "b"]))
    snapshot.forget_memory()
    assert snapshot.key_of(state.cache, streamed=True) == key
    assert snapshot.key_of(state.cache, streamed=False) is None  # unknown unread
    read: list[Path] = []
    real = snapshot._stored

    def stored(path, **kwargs):
        read.append(path)
        return real(path, **kwargs)

    monkeypatch.setattr(snapshot, "_stored", stored)
    assert state.saved(key) and not read
    asked: list[tuple] = []
    with open(source, "a") as handle:
        handle.write("c\n")
    later = state.key()
    assert not state.saved(later) and not read
    assert state.earlier(lambda kept: asked.append(kept) or False) is None
    assert asked == [key] and not read  # not worth it: never read
    assert state.earlier(lambda kept: True) is not None and read == [state.cache]
    monkeypatch.undo()

    plain = lines_state(tmp_path / "plain", source)
    plain.keep(plain.key(), Lines(["a"]))
    snapshot.forget_memory()
    assert snapshot.key_of(plain.cache, streamed=True) is None  # marshalled whole
    assert plain.saved(plain.key())  # told by reading it
    state.cache.write_bytes(state.cache.read_bytes()[:7])  # damaged inside its key
    snapshot.forget_memory()
    assert snapshot.key_of(state.cache, streamed=True) is None
    assert not state.saved(later)
