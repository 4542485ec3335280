// Every grade of a domain's tasks as one attempt, for `cw grade report --per-attempt`.
// Params: $domain, $run ('' = every run; else a run name or an inspect eval id, which takes all its epochs).
MATCH (g:Grade)-[:OF]->(t:Task)
WHERE t.domain = $domain AND ($run = '' OR g.run = $run OR g.eval = $run)
RETURN g.run AS run, g.eval AS eval, g.epoch AS epoch, g.model AS model, t.id AS task, t.level AS level,
       g.status AS status
ORDER BY run, task
