// One grade per (run, task): Grade.id is a hash of both, so grading the same run again replaces it.
// eval and epoch: the inspect eval and the attempt (its epoch) the grade is of; '' and 0 for `cw grade`.
UNWIND $grades AS g
MATCH (t:Task {id: g.task})
MERGE (k:Grade {id: g.id})
SET k.run = g.props.run, k.model = g.props.model, k.task = g.props.task, k.level = g.props.level,
    k.status = g.props.status, k.detail = g.props.detail, k.evidence = g.props.evidence,
    k.output = g.props.output, k.graded_at = g.props.graded_at, k.eval = g.props.eval,
    k.epoch = g.props.epoch
MERGE (k)-[:OF]->(t)
