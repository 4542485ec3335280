// Groups that did not become tasks, by level and reason, with one example task id to `cw tasks show`.
// Params: $domain.
MATCH (t:Task)
WHERE t.domain = $domain AND t.status <> 'admitted'
RETURN t.level AS level, t.status AS status, t.reason AS reason, count(*) AS tasks, min(t.id) AS example
ORDER BY level, tasks DESC, reason
