UNWIND $rows AS r
MERGE (a:Atom {id: r.id})
SET a += r.props
