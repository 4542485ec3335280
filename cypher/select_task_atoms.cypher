// The ordered atoms of the tasks in $ids, one row per COMPOSES edge.
UNWIND $ids AS x
MATCH (t:Task {id: x})-[c:COMPOSES]->(a:Atom)
RETURN t.id AS task, c.position AS position, a.id AS atom
ORDER BY task, position
