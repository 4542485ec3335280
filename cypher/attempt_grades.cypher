// The stored grades of inspect evals' attempts, one per (eval, epoch, task): what `cw train export`
// keeps trajectories by (never a log's own score). Params: $evals, a list of inspect eval ids.
MATCH (g:Grade)-[:OF]->(t:Task)
WHERE g.eval IN $evals
RETURN g.id AS grade, g.eval AS eval, g.epoch AS epoch, t.id AS task, t.domain AS domain, t.level AS level,
       g.status AS status, g.model AS model
ORDER BY eval, epoch, task
