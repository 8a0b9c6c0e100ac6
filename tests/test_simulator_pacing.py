"""The simulator's pacing (``stream_plan``): when each event is written, on a fake clock.

The clock and the sleep are injected, so every test is exact and instant: a sleep moves the
fake clock forward (plus an optional oversleep, to play a loaded machine).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from playground.simulator.plan import Event, Plan, Stall, Step
from playground.simulator.streaming import stream_plan


@dataclass
class FakeTime:
    oversleep: float = 0.0
    now: float = 0.0
    sleeps: list[float] = field(default_factory=list)

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds + self.oversleep


def plan_of(steps: list[Step], *, rate: float) -> Plan:
    return Plan(request_id="req_test", rate=rate, error=None, steps=tuple(steps), message={})


def numbered(count: int, *, tokens: int = 1) -> list[Step]:
    return [Event(name=f"e{n}", data={"n": n}, tokens=tokens) for n in range(count)]


async def writes(plan: Plan, fake: FakeTime, *, tick: float) -> list[tuple[float, list[str]]]:
    """Each write as (fake time, the event names it holds)."""
    out = []
    chunks = stream_plan(plan, tick=tick, clock=fake.clock, sleep=fake.sleep, pace=fake.sleep)
    async for chunk in chunks:
        names = [line[7:] for line in chunk.decode().split("\n") if line.startswith("event: ")]
        out.append((fake.now, names))
    return out


async def test_the_first_event_is_written_at_once() -> None:
    steps = [Event(name="message_start", data={}), *numbered(3)]
    fake = FakeTime()
    sent = await writes(plan_of(steps, rate=10), fake, tick=0.005)
    assert sent[0] == (0.0, ["message_start"])


async def test_events_due_within_one_tick_share_one_write() -> None:
    # One token each at 1,000 tokens/s: one event due every ms, five in each 5 ms tick.
    fake = FakeTime()
    sent = await writes(plan_of(numbered(20), rate=1000), fake, tick=0.005)
    assert [len(names) for _, names in sent] == [5, 5, 5, 5]


async def test_events_further_apart_than_a_tick_are_written_one_by_one() -> None:
    fake = FakeTime()
    sent = await writes(plan_of(numbered(5), rate=100), fake, tick=0.005)
    assert [names for _, names in sent] == [["e0"], ["e1"], ["e2"], ["e3"], ["e4"]]


async def test_no_event_is_written_more_than_a_tick_early() -> None:
    fake = FakeTime()
    sent = await writes(plan_of(numbered(40, tokens=3), rate=1000), fake, tick=0.005)
    due = {f"e{n}": (n + 1) * 0.003 for n in range(40)}
    assert all(at >= due[name] - 0.005 - 1e-9 for at, names in sent for name in names)


async def test_a_late_wake_up_catches_up_instead_of_slowing_the_stream() -> None:
    # Every sleep overshoots by 20 ms (a busy machine): the stream must still end on time,
    # sending what fell due meanwhile together, not one event per late wake-up.
    fake = FakeTime(oversleep=0.020)
    sent = await writes(plan_of(numbered(100), rate=200), fake, tick=0.0)
    assert sum(len(names) for _, names in sent) == 100
    last_due = 100 / 200
    assert sent[-1][0] <= last_due + 0.020 + 1e-9


@pytest.mark.parametrize("oversleep", [0.0, 5.0], ids=["on-time", "far-behind"])
async def test_a_stall_always_sends_nothing_for_its_whole_length(oversleep: float) -> None:
    # Even far behind schedule, the stall is a real silence, and the events after it follow.
    later = [Event(name="after", data={}, tokens=1)]
    steps = [*numbered(2), Stall(seconds=3.0), *later]
    fake = FakeTime(oversleep=oversleep)
    sent = await writes(plan_of(steps, rate=100), fake, tick=0.005)
    before = max(at for at, names in sent if "e1" in names)
    after = min(at for at, names in sent if "after" in names)
    assert after - before >= 3.0


async def test_the_pacing_resumes_after_a_stall_without_a_burst() -> None:
    steps = [*numbered(1), Stall(seconds=3.0), *numbered(4)]
    fake = FakeTime()
    sent = await writes(plan_of(steps, rate=100), fake, tick=0.005)
    assert [len(names) for _, names in sent] == [1, 1, 1, 1, 1]
