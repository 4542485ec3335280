UNWIND $rows AS r
MERGE (a:Atom {id: r.id})
SET a.domain = r.domain, a.title = r.title, a.repo = r.repo, a.files = r.files, a.in_type = r.in_type,
    a.out_type = r.out_type, a.label = r.label, a.source = r.source, a.payload = r.payload
