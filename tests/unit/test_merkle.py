"""The Merkle tree agrees with RFC 6962's published test vectors (Certificate Transparency)."""

from __future__ import annotations

import hashlib

import pytest

from ledger import merkle

# Leaf data and the root of each tree size 1..8, as published with RFC 6962 implementations (CT, transparency-dev).
DATA = [bytes.fromhex(h) for h in ["", "00", "10", "2021", "3031", "40414243", "5051525354555657",
                                   "606162636465666768696a6b6c6d6e6f"]]
ROOTS = ["6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
         "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
         "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
         "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
         "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
         "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
         "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
         "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"]
INCLUSION = [
    (0, 8, ["96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (5, 8, ["bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
]
CONSISTENCY = [
    (2, 8, ["5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"]),
    (6, 8, ["0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"]),
    (2, 5, ["5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b"]),
]
LEAVES = [merkle.leaf_hash(d) for d in DATA]


def test_the_empty_tree_hashes_to_sha256_of_nothing():
    assert merkle.root([]).hex() == hashlib.sha256(b"").hexdigest()


@pytest.mark.parametrize("size", range(1, 9))
def test_roots_match_the_rfc6962_vectors(size):
    assert merkle.root(LEAVES[:size]).hex() == ROOTS[size - 1]


def test_the_frontier_gives_every_published_root_one_append_at_a_time():
    frontier: list[bytes] = []
    for size, leaf in enumerate(LEAVES):
        frontier = merkle.frontier_append(frontier, size, leaf)
        assert merkle.frontier_root(frontier).hex() == ROOTS[size]
        assert len(frontier) == bin(size + 1).count("1")  # one subtree root per set bit: O(log n)


@pytest.mark.parametrize(("index", "size", "proof"), INCLUSION)
def test_inclusion_proofs_match_the_rfc6962_vectors(index, size, proof):
    got = merkle.inclusion_proof(index, LEAVES[:size])
    assert [p.hex() for p in got] == proof
    assert merkle.verify_inclusion(index, size, LEAVES[index], got, bytes.fromhex(ROOTS[size - 1]))


@pytest.mark.parametrize(("m", "n", "proof"), CONSISTENCY)
def test_consistency_proofs_match_the_rfc6962_vectors(m, n, proof):
    got = merkle.consistency_proof(m, LEAVES[:n])
    assert [p.hex() for p in got] == proof
    assert merkle.verify_consistency(m, n, bytes.fromhex(ROOTS[m - 1]), bytes.fromhex(ROOTS[n - 1]), got)


def _many(n: int) -> list[bytes]:
    return [merkle.leaf_hash(i.to_bytes(4, "big")) for i in range(n)]


def test_every_proof_of_every_shape_verifies_and_a_mangled_one_does_not():
    leaves = _many(33)
    roots = [merkle.root(leaves[:n]) for n in range(34)]
    for n in range(1, 34):
        for i in range(n):
            proof = merkle.inclusion_proof(i, leaves[:n])
            assert merkle.verify_inclusion(i, n, leaves[i], proof, roots[n])
            assert not merkle.verify_inclusion(i, n, leaves[(i + 1) % 33], proof, roots[n])
            if proof:
                assert not merkle.verify_inclusion(i, n, leaves[i], proof[:-1], roots[n])
        for m in range(1, n + 1):
            proof = merkle.consistency_proof(m, leaves[:n])
            assert merkle.verify_consistency(m, n, roots[m], roots[n], proof)
            if m < n:
                other = merkle.root([*leaves[:m - 1], merkle.leaf_hash(b"forged")])
                assert not merkle.verify_consistency(m, n, other, roots[n], proof)  # a rewritten prefix
                assert not merkle.verify_consistency(m, n, roots[m], roots[n], proof[:-1])
