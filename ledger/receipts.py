"""A player's receipts (signed checkpoints they kept) checked against the service.

What a receipt proves does not depend on the operator: its signature is the
service's key's, and every check below verifies a Merkle proof against the
roots *in the receipts*, so the service can only pass them by holding a
history that extends every receipt. Detected: a truncated history (a receipt
covers more events than the service holds), a rewritten tail (the current tree
does not extend a receipt), and a fork (two receipts that cannot both belong to
one history: same size and different roots, or a later receipt the rows still hold that is not consistent with
an earlier one). Receipts of one history whose rows were rewritten since are "rewritten", never a "fork".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from uuid import UUID

from ledger import merkle
from ledger.application import Ledger
from ledger.checkpoints import Checkpoint, CheckpointError, parse_note


@dataclass
class ReceiptReport:
    checked: int = 0
    head: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def audit_receipts(ledger: Ledger, cid: UUID, receipts: dict[str, str]) -> ReceiptReport:
    """``receipts``: name (a file name) -> signed checkpoint text."""
    report = ReceiptReport()
    origin = ledger.signer.origin(cid)
    kept: list[tuple[str, Checkpoint]] = []
    for name, text in sorted(receipts.items()):
        try:
            cp = parse_note(text, ledger.signer.name, ledger.signer.public)
        except CheckpointError as e:
            report.problems.append(f"{name}: {e}")
            continue
        if cp.origin != origin:
            report.problems.append(f"{name}: a checkpoint of {cp.origin!r}, not of this campaign ({origin!r})")
            continue
        kept.append((name, cp))
    kept.sort(key=lambda k: k[1].size)
    # The stored hashes, read once; every proof below is verified against the receipts' roots.
    leaves = ledger.leaf_hashes(cid, 2**63)
    head = report.head = len(leaves)
    current = merkle.root(leaves)

    def proof(m: int, n: int) -> list[bytes]:
        return merkle.consistency_proof(m, leaves[:n]) if n <= head else []

    # Whether the stored rows still hold each receipt's history: only then can they prove anything about a pair
    # of receipts (a proof built from rewritten rows would call two receipts of one history a fork).
    holds = {name: cp.size <= head and merkle.verify_consistency(cp.size, head, cp.root, current,
                                                                  proof(cp.size, head)) for name, cp in kept}
    for i, (name, cp) in enumerate(kept):
        report.checked += 1
        for earlier_name, earlier in kept[:i]:
            if earlier.size == cp.size and earlier.root != cp.root:
                report.problems.append(f"fork: {earlier_name} and {name} both sign {cp.size} events with "
                                       "different roots: two histories were shown")
            elif earlier.size < cp.size and holds[name] and not merkle.verify_consistency(
                    earlier.size, cp.size, earlier.root, cp.root, proof(earlier.size, cp.size)):
                report.problems.append(f"fork: {name} ({cp.size} events) does not extend {earlier_name} "
                                       f"({earlier.size} events)")
        if cp.size > head:
            report.problems.append(f"truncated: {name} covers {cp.size} events, the service now holds {head}")
        elif not holds[name]:
            report.problems.append(f"rewritten: the current history ({head} events) does not extend {name} "
                                   f"({cp.size} events)")
    return report
