"""Disk physics of the simulated peg board, driven by a stream of gripper poses (all lengths in mm).

:class:`DiskBoard` knows where every disk is (on a peg, in the gripper, or fallen on the table) and turns each
new :class:`GripperPose` into events:

* a **pick** when the fingers close past a top disk's diameter at its mid-height and centre, within
  :data:`GRIP_HEIGHT_TOLERANCE_MM` and :data:`GRIP_CENTRE_TOLERANCE_MM`; closing anywhere else is a
  **missed_pick** (not a fault: the grip sensor shows it and the host decides);
* a **place** when the fingers open with the held disk threaded over a peg (within the hole's clearance); the
  disk falls onto the stack, and landing on a narrower disk is the fault ``BAD_STACK`` (equal diameters may
  stack; the rules may allow more, e.g. ``big-on-top``);
* a **drop** (fault ``DROP``) when the fingers open with the disk away from every peg;
* a **limp** grip when a servo goes unpowered with a disk in the fingers: an undriven servo holds nothing, so the
  disk falls as if the fingers had opened where they last were (a place if it is threaded on a peg, else a drop;
  logged, but no fault is latched: nothing on the board would see it);
* a **collision** (fault ``COLLISION``) when the fingers, the palm above them or the held disk overlap a peg,
  a disk on a peg or the board surface by more than :data:`CONTACT_TOLERANCE_MM` (a level claw's fingers and
  palm are its bars, :mod:`.claw_contact`). Poses are interpolated in
  steps of at most :data:`MAX_SUBSTEP_MM` so a fast move cannot tunnel through a thin peg between two ticks.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from hanoifw import protocol

from ..errors import StateError
from ..puzzle import Rules, State, peg_letter
from .claw_contact import claw_hits
from .shapes import distance_xy_mm, height_overlap_mm, ring_meets_disc

#: The gripper's axis must be this close (mm) to a disk's centre for the closing fingers to take it.
GRIP_CENTRE_TOLERANCE_MM = 4.0
#: The fingertips must be this close (mm) to a disk's mid-height for the closing fingers to take it.
GRIP_HEIGHT_TOLERANCE_MM = 3.0
#: Bodies may overlap by this much (mm) without it counting as a collision (pulse rounding, touching surfaces).
CONTACT_TOLERANCE_MM = 1.0
#: Longest straight step (mm) between two collision checks; thinner than a peg so nothing tunnels.
MAX_SUBSTEP_MM = 2.0

#: Fault names latched in the firmware controller (see docs/protocol.md).
FAULT_COLLISION = protocol.FAULT_COLLISION
FAULT_DROP = protocol.FAULT_DROP
FAULT_BAD_STACK = protocol.FAULT_BAD_STACK

Event = dict[str, Any]


class BoardGeometry(NamedTuple):
    """The physical board and gripper in the arm's base frame (mm). Disk diameters are listed smallest first.

    The gripper is modelled as the ring its two fingers sweep around the gripper axis (inner radius = half the
    finger gap, ``finger_thickness_mm`` thick, ``finger_length_mm`` tall from the fingertips) under a solid palm
    of ``palm_radius_mm`` that reaches up from the top of the fingers. A level claw (a pose with a heading) is its
    bars instead (:mod:`.claw_contact`): fingers ``finger_length_mm`` long and ``finger_width_mm`` tall.
    """

    pegs_xy_mm: tuple[tuple[float, float], ...]
    peg_heights_mm: tuple[float, ...]
    peg_diameter_mm: float
    disk_diameters_mm: tuple[float, ...]
    disk_thickness_mm: float
    hole_diameter_mm: float
    finger_length_mm: float
    palm_radius_mm: float
    finger_thickness_mm: float = 4.0
    board_z_mm: float = 0.0
    #: How tall (mm) each finger of a level claw is (:mod:`.claw_contact`); unused for a gripper pointing down.
    finger_width_mm: float = 4.0


class GripperPose(NamedTuple):
    """Where the fingertips are (centre between them, mm in the base frame) and how far apart (mm); for a level
    claw (a side grasp) also the horizontal way its fingers point (``heading_x``, ``heading_y``: a unit vector;
    both 0 for a gripper pointing down)."""

    x_mm: float
    y_mm: float
    z_mm: float
    width_mm: float
    heading_x: float = 0.0
    heading_y: float = 0.0

    @property
    def is_level(self) -> bool:
        """True for a level claw (a side grasp)."""
        return self.heading_x * self.heading_x + self.heading_y * self.heading_y > 0.25


class _Body(NamedTuple):
    """An upright solid obstacle: a peg or a disk standing on a peg."""

    name: str
    x_mm: float
    y_mm: float
    radius_mm: float
    low_z_mm: float
    high_z_mm: float
    disk: int  # 0 for a peg


class DiskBoard:
    """Disks on pegs, in the gripper or loose on the table, updated from gripper poses.

    ``stacks`` lists each peg's disks bottom first (disk 1 = smallest; irregular stacks are allowed).
    ``events`` is appended to (pass a shared list to merge logs); every event is a dict with ``t_s`` and
    ``event`` (``pick``, ``missed_pick``, ``place``, ``drop``, ``fault``). ``rules`` say what may land on what
    (default classic: only on a larger disk; ``big-on-top`` also lets the largest disk land on a smaller one).
    """

    def __init__(
        self,
        geometry: BoardGeometry,
        stacks: Sequence[Sequence[int]],
        *,
        events: list[Event] | None = None,
        rules: Rules | None = None,
    ) -> None:
        if not len(stacks) == len(geometry.pegs_xy_mm) == len(geometry.peg_heights_mm):
            raise StateError(
                f"board state has {len(stacks)} pegs: expected {len(geometry.pegs_xy_mm)}, the pegs of the robot config"
            )
        state = State(stacks)
        if state.n_disks > len(geometry.disk_diameters_mm):
            raise StateError(
                f"board state has {state.n_disks} disks: expected at most {len(geometry.disk_diameters_mm)}, "
                "the disks the robot config describes"
            )
        self.geometry = geometry
        self.rules = rules or Rules(len(stacks))
        self._n_disks = state.n_disks
        self.events: list[Event] = events if events is not None else []
        self._stacks = [list(stack) for stack in state.stacks]
        self.held_disk: int | None = None
        self.loose_disks: list[int] = []
        self._held_offset_z_mm = 0.0
        self._last_pose: GripperPose | None = None
        self._touching: frozenset[str] = frozenset()
        self._step_mm = min(MAX_SUBSTEP_MM, geometry.peg_diameter_mm / 2, geometry.finger_thickness_mm)
        self._threading_mm = (geometry.hole_diameter_mm - geometry.peg_diameter_mm) / 2 + CONTACT_TOLERANCE_MM
        self._highest_z_mm = geometry.board_z_mm + max(geometry.peg_heights_mm)
        self._bodies = self._make_bodies()

    # --- what the host and the renderers read ------------------------------------------------------------
    @property
    def stacks(self) -> tuple[tuple[int, ...], ...]:
        """Each peg's disks, bottom first."""
        return tuple(tuple(stack) for stack in self._stacks)

    @property
    def state(self) -> State | None:
        """The board as a puzzle State, or None while a disk is in the gripper or has fallen off the pegs."""
        if self.held_disk is not None or self.loose_disks:
            return None
        return State(self._stacks)

    def grip_width_mm(self) -> float:
        """Diameter (mm) of the disk between the fingers, 0.0 when they hold nothing."""
        if self.held_disk is None:
            return 0.0
        return self.geometry.disk_diameters_mm[self.held_disk - 1]

    def level_z_mm(self, level: int) -> float:
        """Height (mm) of the bottom of the ``level``-th disk (0 = lowest) of a stack."""
        return self.geometry.board_z_mm + level * self.geometry.disk_thickness_mm

    # --- the operator ---------------------------------------------------------------------------------------
    def put_back(self, t_s: float, disk: int, peg: int) -> None:
        """The operator takes ``disk`` out of the gripper (or off the table) and puts it on top of ``peg`` (0 = A),
        e.g. after a reset mid-carry; logged as ``put_back`` at ``t_s`` (s). StateError unless the disk is loose."""
        if disk == self.held_disk:
            self.held_disk = None
        elif disk in self.loose_disks:
            self.loose_disks.remove(disk)
        else:
            raise StateError(f"disk {disk} is neither held nor fallen: expected {self.held_disk} or {self.loose_disks}")
        if not 0 <= peg < len(self._stacks):
            raise StateError(f"peg {peg} does not exist: expected 0 to {len(self._stacks) - 1}")
        self._stacks[peg].append(disk)
        self._bodies = self._make_bodies()
        self._log(t_s, "put_back", disk=disk, peg=peg_letter(peg))

    def take_off(self, t_s: float, peg: int) -> int:
        """The operator lifts the top disk of ``peg`` (0 = A) off the board and keeps it in hand (loose until
        :meth:`put_back`), e.g. to make a pick miss; logged as ``take_off`` at ``t_s`` (s). The disk; StateError
        when the peg is empty or does not exist."""
        if not 0 <= peg < len(self._stacks) or not self._stacks[peg]:
            raise StateError(f"peg {peg} has no disk to take off: expected a peg with disks")
        disk = self._stacks[peg].pop()
        self.loose_disks.append(disk)
        self._bodies = self._make_bodies()
        self._log(t_s, "take_off", disk=disk, peg=peg_letter(peg))
        return disk

    # --- the physics --------------------------------------------------------------------------------------
    def update(self, t_s: float, pose: GripperPose | None) -> list[str]:
        """Move the gripper to ``pose`` at time ``t_s`` (s); returns the faults that newly happened.

        ``pose`` None means a servo of the arm is unpowered: an undriven servo holds nothing, so a held disk is
        let go where the fingers last were (:meth:`_let_go`); the arm sags out of any known pose and the next pose
        starts a fresh path.
        """
        last = self._last_pose
        self._last_pose = pose
        if pose is None:
            return self._let_go(t_s, last)
        if pose == last:
            return []
        faults: list[str] = []
        previous_width_mm = pose.width_mm if last is None else last.width_mm
        for step in self._path(last, pose):
            faults.extend(self._grip(t_s, previous_width_mm, step))
            faults.extend(self._collide(t_s, step))
            previous_width_mm = step.width_mm
        return faults

    def _path(self, start: GripperPose | None, end: GripperPose) -> Iterator[GripperPose]:
        """Poses from just after ``start`` to ``end`` in straight steps of at most the substep length."""
        if start is None:
            yield end
            return
        span_mm = max(
            abs(end.x_mm - start.x_mm),
            abs(end.y_mm - start.y_mm),
            abs(end.z_mm - start.z_mm),
            abs(end.width_mm - start.width_mm) / 2,
        )
        count = max(1, math.ceil(span_mm / self._step_mm))
        for i in range(1, count + 1):
            f = i / count
            yield GripperPose(*(a + (b - a) * f for a, b in zip(start, end, strict=True)))

    def _grip(self, t_s: float, previous_width_mm: float, pose: GripperPose) -> list[str]:
        """Pick, release or miss as the fingers close or open past a disk's diameter."""
        diameters_mm = self.geometry.disk_diameters_mm
        if self.held_disk is not None:
            if pose.width_mm > diameters_mm[self.held_disk - 1]:
                return self._release(t_s, pose)
            return []
        for peg, stack in enumerate(self._stacks):
            closing_past_top = stack and previous_width_mm >= diameters_mm[stack[-1] - 1] > pose.width_mm
            if closing_past_top and self._is_aligned(pose, peg):
                self._pick(t_s, pose, peg)
                return []
        smallest_mm = min(diameters_mm)
        if previous_width_mm >= smallest_mm > pose.width_mm:
            self._log(t_s, "missed_pick", x_mm=pose.x_mm, y_mm=pose.y_mm, z_mm=pose.z_mm)
        return []

    def _let_go(self, t_s: float, last: GripperPose | None) -> list[str]:
        """The servos went limp with a disk in the fingers: the gripper opens under the disk's weight and the
        disk falls, onto the peg it is threaded on (a place) or onto the table (a drop). Returns no fault."""
        if self.held_disk is None or last is None:
            return []
        self._log(t_s, "limp", disk=self.held_disk)
        return self._release(t_s, last, limp=True)

    def _is_aligned(self, pose: GripperPose, peg: int) -> bool:
        """True if the fingertips are at the top disk of ``peg``: centred and at its mid-height."""
        x_mm, y_mm = self.geometry.pegs_xy_mm[peg]
        mid_z_mm = self.level_z_mm(len(self._stacks[peg]) - 1) + self.geometry.disk_thickness_mm / 2
        centred = distance_xy_mm(pose.x_mm, pose.y_mm, x_mm, y_mm) <= GRIP_CENTRE_TOLERANCE_MM
        return centred and abs(pose.z_mm - mid_z_mm) <= GRIP_HEIGHT_TOLERANCE_MM

    def _pick(self, t_s: float, pose: GripperPose, peg: int) -> None:
        """Take the top disk of ``peg`` into the fingers, keeping its height (mm) relative to the fingertips."""
        disk = self._stacks[peg].pop()
        mid_z_mm = self.level_z_mm(len(self._stacks[peg])) + self.geometry.disk_thickness_mm / 2
        self.held_disk = disk
        self._held_offset_z_mm = mid_z_mm - pose.z_mm
        self._bodies = self._make_bodies()
        self._log(t_s, "pick", disk=disk, peg=peg_letter(peg))

    def _release(self, t_s: float, pose: GripperPose, *, limp: bool = False) -> list[str]:
        """Let go of the held disk: it falls onto the peg it is threaded on, or onto the table. A ``limp`` gripper
        drops it without a fault: nothing on the board would see it fall (the drop is logged)."""
        disk = self.held_disk
        assert disk is not None
        self.held_disk = None
        for peg, (x_mm, y_mm) in enumerate(self.geometry.pegs_xy_mm):
            if distance_xy_mm(pose.x_mm, pose.y_mm, x_mm, y_mm) <= self._threading_mm:
                stack = self._stacks[peg]
                onto = stack[-1] if stack else None
                stack.append(disk)
                self._bodies = self._make_bodies()
                self._log(t_s, "place", disk=disk, peg=peg_letter(peg))
                if not self._may_land(disk, onto):
                    return [self._fault(t_s, FAULT_BAD_STACK, f"disk {disk} landed on smaller disk {onto}")]
                return []
        self.loose_disks.append(disk)
        self._log(t_s, "drop", disk=disk, x_mm=pose.x_mm, y_mm=pose.y_mm)
        if limp:
            return []
        return [self._fault(t_s, FAULT_DROP, f"disk {disk} released away from every peg")]

    def _may_land(self, disk: int, onto: int | None) -> bool:
        """True if ``disk`` may lie on ``onto``: an empty peg or a disk at least as wide (equal diameters stack),
        or what the rules allow besides (``big-on-top``)."""
        if onto is None:
            return True
        diameters_mm = self.geometry.disk_diameters_mm
        return diameters_mm[disk - 1] <= diameters_mm[onto - 1] or self.rules.may_land(disk, onto, self._n_disks)

    def _collide(self, t_s: float, pose: GripperPose) -> list[str]:
        """Report a COLLISION for each body the fingers or held disk newly touch."""
        touching = frozenset(self._touching_bodies(pose))
        new = sorted(touching - self._touching)
        self._touching = touching
        return [self._fault(t_s, FAULT_COLLISION, what) for what in new]

    def _touching_bodies(self, pose: GripperPose) -> Iterator[str]:
        """Describe every overlap of the fingers, the palm or the held disk with a body or the board surface."""
        g = self.geometry
        tol_mm = CONTACT_TOLERANCE_MM
        held = self.held_disk
        low_z_mm = pose.z_mm
        held_low_z_mm = pose.z_mm + self._held_offset_z_mm - g.disk_thickness_mm / 2
        if pose.is_level:
            low_z_mm -= g.finger_width_mm / 2  # the claw's bars are centred on the grip point's height
        if held is not None:
            low_z_mm = min(low_z_mm, held_low_z_mm)
        if low_z_mm < g.board_z_mm - tol_mm:
            yield "gripper hits the board surface"
        if low_z_mm > self._highest_z_mm + tol_mm:
            return  # above every peg tip: nothing to hit
        if pose.is_level:
            yield from self._claw_touching(pose)
            return
        finger_in_mm = (g.disk_diameters_mm[held - 1] if held is not None else pose.width_mm) / 2
        finger_out_mm = finger_in_mm + g.finger_thickness_mm
        palm_z_mm = pose.z_mm + g.finger_length_mm
        for body in self._bodies:
            d_mm = distance_xy_mm(pose.x_mm, pose.y_mm, body.x_mm, body.y_mm)
            if body.high_z_mm > palm_z_mm + tol_mm and d_mm < g.palm_radius_mm + body.radius_mm - tol_mm:
                yield f"gripper palm hits {body.name}"
            centred_top = held is None and body.disk and self._is_centred_top(body, d_mm)
            fingers_level = height_overlap_mm(pose.z_mm, palm_z_mm, body.low_z_mm, body.high_z_mm) > tol_mm
            # Closing fingers centre the top disk they are taking, so that one does not count.
            if (
                fingers_level
                and not centred_top
                and ring_meets_disc(d_mm, finger_in_mm, finger_out_mm, body.radius_mm, tol_mm)
            ):
                yield f"gripper fingers hit {body.name}"
            if held is None:
                continue
            held_high_z_mm = held_low_z_mm + g.disk_thickness_mm
            held_level = height_overlap_mm(held_low_z_mm, held_high_z_mm, body.low_z_mm, body.high_z_mm) > tol_mm
            held_radius_mm = g.disk_diameters_mm[held - 1] / 2
            if held_level and ring_meets_disc(d_mm, g.hole_diameter_mm / 2, held_radius_mm, body.radius_mm, tol_mm):
                yield f"held disk {held} hits {body.name}"

    def _claw_touching(self, pose: GripperPose) -> Iterator[str]:
        """:meth:`_touching_bodies` for a level claw: its bars (:mod:`.claw_contact`), and the held disk."""
        g, held = self.geometry, self.held_disk
        gap_mm = g.disk_diameters_mm[held - 1] if held is not None else pose.width_mm
        centred = (
            ()
            if held is not None
            else [
                b.name
                for b in self._bodies
                if b.disk and self._is_centred_top(b, distance_xy_mm(pose.x_mm, pose.y_mm, b.x_mm, b.y_mm))
            ]
        )
        yield from claw_hits(
            pose,
            gap_mm,
            self._bodies,
            finger_length_mm=g.finger_length_mm,
            finger_thickness_mm=g.finger_thickness_mm,
            finger_width_mm=g.finger_width_mm,
            tolerance_mm=CONTACT_TOLERANCE_MM,
            centred=centred,
        )
        if held is None:
            return
        held_low_z_mm = pose.z_mm + self._held_offset_z_mm - g.disk_thickness_mm / 2
        held_radius_mm = g.disk_diameters_mm[held - 1] / 2
        for body in self._bodies:
            d_mm = distance_xy_mm(pose.x_mm, pose.y_mm, body.x_mm, body.y_mm)
            level_mm = height_overlap_mm(
                held_low_z_mm, held_low_z_mm + g.disk_thickness_mm, body.low_z_mm, body.high_z_mm
            )
            if level_mm > CONTACT_TOLERANCE_MM and ring_meets_disc(
                d_mm, g.hole_diameter_mm / 2, held_radius_mm, body.radius_mm, CONTACT_TOLERANCE_MM
            ):
                yield f"held disk {held} hits {body.name}"

    def _is_centred_top(self, body: _Body, distance_mm: float) -> bool:
        """True if ``body`` is a top disk whose centre is within grip tolerance of the gripper axis."""
        return distance_mm <= GRIP_CENTRE_TOLERANCE_MM and any(s and s[-1] == body.disk for s in self._stacks)

    def _make_bodies(self) -> list[_Body]:
        """Every peg and every disk standing on a peg, as upright cylinders."""
        g = self.geometry
        bodies = []
        for peg, (x_mm, y_mm) in enumerate(g.pegs_xy_mm):
            name = f"peg {peg_letter(peg)}"
            tip_z_mm = g.board_z_mm + g.peg_heights_mm[peg]
            bodies.append(_Body(name, x_mm, y_mm, g.peg_diameter_mm / 2, g.board_z_mm, tip_z_mm, 0))
            for level, disk in enumerate(self._stacks[peg]):
                low_z_mm = self.level_z_mm(level)
                radius_mm = g.disk_diameters_mm[disk - 1] / 2
                high_z_mm = low_z_mm + g.disk_thickness_mm
                bodies.append(_Body(f"disk {disk} on {name}", x_mm, y_mm, radius_mm, low_z_mm, high_z_mm, disk))
        return bodies

    # --- the log ------------------------------------------------------------------------------------------
    def _fault(self, t_s: float, fault: str, detail: str) -> str:
        """Log fault ``fault`` at ``t_s`` (s) with a human ``detail``; returns the fault name."""
        self._log(t_s, "fault", fault=fault, detail=detail)
        return fault

    def _log(self, t_s: float, event: str, **fields: Any) -> None:
        """Append one event stamped with ``t_s`` (s, rounded to the µs)."""
        self.events.append({"t_s": round(t_s, 6), "event": event, **fields})
