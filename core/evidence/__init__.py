"""Ranked hits in, evidence out: the token-budgeted context pack and the contract-checked evidence bundle
(compile.py, bundle.py: roles, selection reasons, coverage notes, warnings; cuts.py: how a chunk is cut to fit), Biblicus-style context-pack policies
(policy.py), and the one reader and writer of stored bundles and hits (stored.py) with its record type (record.py)."""
