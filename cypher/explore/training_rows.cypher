// Training rows that came from one atom: every exported trajectory (`cw train export`) of a task composing it,
// with the stored grade that kept it and the row of the export's trajectories.jsonl it is.
// Params: $atom, an Atom id. In Neo4j Browser first run  :param atom => 'repo/ID'
MATCH (a:Atom {id: $atom})<-[:COMPOSES]-(t:Task)<-[:OF]-(j:Trajectory)
RETURN j.export AS export, j.row AS row, t.id AS task, t.level AS level, j.split AS split, j.eval AS eval,
       j.epoch AS epoch, j.grade AS grade, j.status AS status, j.model AS model
ORDER BY export, row
