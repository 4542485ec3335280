UNWIND $ids AS x
MATCH (t:Task {id: x})
RETURN t.id AS id
