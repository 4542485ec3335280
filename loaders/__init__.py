"""Loaders: one module per source, each turning a source's records into Atom records."""
