// Atoms that may exist: the same upsert as upsert_atoms, reading an Arrow table instead of a list.
LOAD FROM $rows
MERGE (a:Atom {id: id})
SET a.domain = domain, a.title = title, a.repo = repo, a.files = files, a.in_type = in_type,
    a.out_type = out_type, a.label = label, a.source = source, a.payload = payload
