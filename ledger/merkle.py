"""RFC 6962 Merkle tree over a campaign's event hashes.

Leaf data is the event's own hash (32 bytes); ``leaf = sha256(0x00 || data)``,
``node = sha256(0x01 || left || right)``, and a tree of n leaves splits at the
largest power of two smaller than n. The write side keeps only the *frontier*
(the roots of the perfect subtrees along the right edge, at most log2(n) of
them), so appending an event and knowing the root at the head costs O(log n)
and reads no history. Proofs are computed from the full list of leaf hashes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

EMPTY_ROOT = hashlib.sha256(b"").digest()


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two smaller than n (n >= 2)."""
    return 1 << ((n - 1).bit_length() - 1)


def root(leaves: Sequence[bytes]) -> bytes:
    """Root of a tree whose leaf *hashes* are given."""
    n = len(leaves)
    if n == 0:
        return EMPTY_ROOT
    if n == 1:
        return leaves[0]
    k = _split(n)
    return node_hash(root(leaves[:k]), root(leaves[k:]))


# ------------------------------------------------------------------ frontier


def frontier_append(frontier: Sequence[bytes], size: int, leaf: bytes) -> list[bytes]:
    """The frontier of a tree of ``size + 1`` leaves, from that of ``size`` leaves and the new leaf hash.

    The frontier holds one subtree root per set bit of ``size``, largest first;
    the new leaf merges with as many of the smallest as ``size`` has trailing ones.
    """
    out = list(frontier)
    h = leaf
    s = size
    while s & 1:
        h = node_hash(out.pop(), h)
        s >>= 1
    out.append(h)
    return out


def frontier_root(frontier: Sequence[bytes]) -> bytes:
    if not frontier:
        return EMPTY_ROOT
    h = frontier[-1]
    for left in reversed(frontier[:-1]):
        h = node_hash(left, h)
    return h


# ------------------------------------------------------------------ proofs


def inclusion_proof(index: int, leaves: Sequence[bytes]) -> list[bytes]:
    """Audit path of leaf ``index`` (0-based) in the tree of all ``leaves`` (RFC 6962 2.1.1)."""
    n = len(leaves)
    if not 0 <= index < n:
        raise ValueError(f"leaf index {index} is outside a tree of {n} leaves")
    if n == 1:
        return []
    k = _split(n)
    if index < k:
        return inclusion_proof(index, leaves[:k]) + [root(leaves[k:])]
    return inclusion_proof(index - k, leaves[k:]) + [root(leaves[:k])]


def consistency_proof(m: int, leaves: Sequence[bytes]) -> list[bytes]:
    """Proof that the tree of the first ``m`` leaves is a prefix of the tree of all ``leaves`` (RFC 6962 2.1.2)."""
    n = len(leaves)
    if not 0 <= m <= n:
        raise ValueError(f"size {m} is outside 0..{n}")
    if m == 0 or m == n:
        return []
    return _subproof(m, leaves, True)


def _subproof(m: int, leaves: Sequence[bytes], complete: bool) -> list[bytes]:
    n = len(leaves)
    if m == n:
        return [] if complete else [root(leaves)]
    k = _split(n)
    if m <= k:
        return _subproof(m, leaves[:k], complete) + [root(leaves[k:])]
    return _subproof(m - k, leaves[k:], False) + [root(leaves[:k])]


def verify_inclusion(index: int, size: int, leaf: bytes, proof: Sequence[bytes], expected_root: bytes) -> bool:
    """RFC 9162 2.1.3.2: recompute the root from a leaf hash and its audit path."""
    if not 0 <= index < size:
        return False
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == expected_root


def verify_consistency(m: int, n: int, root_m: bytes, root_n: bytes, proof: Sequence[bytes]) -> bool:
    """RFC 9162 2.1.4.2: the tree of size n extends the tree of size m."""
    if not 0 <= m <= n:
        return False
    if m == n:
        return not proof and root_m == root_n
    if m == 0:
        return not proof and root_m == EMPTY_ROOT
    path = list(proof)
    if m & (m - 1) == 0:  # m is a power of two: its root is the first node of the path
        path.insert(0, root_m)
    if not path:
        return False
    fn, sn = m - 1, n - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            if not fn & 1:
                while fn and not fn & 1:
                    fn >>= 1
                    sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return fr == root_m and sr == root_n and sn == 0
