// Every grade of a domain's tasks, with the task's level: what `cw grade report` analyses.
// Params: $domain, $run ('' = every run).
MATCH (g:Grade)-[:OF]->(t:Task)
WHERE t.domain = $domain AND ($run = '' OR g.run = $run)
RETURN g.run AS run, g.model AS model, t.id AS task, t.level AS level, g.status AS status
ORDER BY run, task
