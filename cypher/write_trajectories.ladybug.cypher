// Exported training rows: (:Trajectory)-[:OF]->(:Task), idempotent by Trajectory.id (export, eval, epoch, task).
UNWIND $rows AS r
MATCH (t:Task {id: r.task})
MERGE (j:Trajectory {id: r.id})
SET j.task = r.props.task, j.eval = r.props.eval, j.epoch = r.props.epoch, j.grade = r.props.grade,
    j.status = r.props.status, j.model = r.props.model, j.level = r.props.level, j.split = r.props.split,
    j.export = r.props.export, j.row = r.props.row, j.seed = r.props.seed, j.exported_at = r.props.exported_at
MERGE (j)-[:OF]->(t)
