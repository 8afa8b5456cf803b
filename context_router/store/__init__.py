"""The store: the state database, the docs index, pins' attestation, the background indexer, files ctx writes."""
