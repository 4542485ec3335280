// One grade per (run, task): Grade.id is a hash of both, so grading the same run again replaces it.
UNWIND $grades AS g
MATCH (t:Task {id: g.task})
MERGE (k:Grade {id: g.id})
SET k += g.props
MERGE (k)-[:OF]->(t)
