// A task, its IN_RUN edge and its ordered COMPOSES edges in one transaction. MERGE on the unique
// Task.id makes re-runs and concurrent writers idempotent; edges go to the run that created the task.
UNWIND $tasks AS t
MERGE (k:Task {id: t.id})
ON CREATE SET k += t.props
WITH k, t
MATCH (r:Run {id: k.run})
MERGE (k)-[:IN_RUN]->(r)
WITH k, t
UNWIND range(0, size(t.atoms) - 1) AS i
MATCH (a:Atom {id: t.atoms[i]})
MERGE (k)-[:COMPOSES {position: i}]->(a)
