"""The store: one SQLite file, one schema. In: a path. Out: an open Store (connection.py: WAL, busy timeout, the schema
applied from store.db-schema.sql and its version recorded, one transaction per logical write) and the runs in it as
every other folder names them (runs.py: resolve a RUN argument, list runs, a run's settings)."""
