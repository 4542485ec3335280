// Exported training rows: (:Trajectory)-[:OF]->(:Task), idempotent by Trajectory.id (export, eval, epoch, task).
UNWIND $rows AS r
MATCH (t:Task {id: r.task})
MERGE (j:Trajectory {id: r.id})
SET j += r.props
MERGE (j)-[:OF]->(t)
