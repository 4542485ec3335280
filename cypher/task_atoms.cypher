MATCH (t:Task {id: $id})-[c:COMPOSES]->(a:Atom)
RETURN c.position AS position, a.id AS atom
ORDER BY position
