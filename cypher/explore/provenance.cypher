// Provenance of one task: the Task, its atoms in order (COMPOSES.position) and the run that made it.
// Params: $id, a Task id from `cw tasks list`. In Neo4j Browser first run  :param id => 'tXXXX'
MATCH (t:Task {id: $id})-[c:COMPOSES]->(a:Atom)
OPTIONAL MATCH (t)-[r:IN_RUN]->(run:Run)
RETURN t, c, a, r, run
ORDER BY c.position
