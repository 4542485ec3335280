// Other tasks that share at least one atom with task $id, most shared first.
// Params: $id, a Task id.
MATCH (t:Task {id: $id})-[:COMPOSES]->(a:Atom)<-[:COMPOSES]-(o:Task)
WHERE o.id <> t.id
RETURN o.id AS task, o.level AS level, o.status AS status, count(DISTINCT a) AS shared,
       collect(DISTINCT a.id) AS atoms
ORDER BY shared DESC, task
