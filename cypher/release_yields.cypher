// What `cw release` counts at one level: the attempts stored by one composer (Task.generator_version ends
// with "/ <composer_version>": tasks of an older composer are other tasks), by status and reason.
MATCH (t:Task)
WHERE t.domain = $domain AND t.level = $level AND t.generator_version ENDS WITH $composer
RETURN t.status AS status, t.reason AS reason, count(*) AS tasks
ORDER BY status, reason
