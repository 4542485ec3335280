MATCH (t:Task)
WHERE t.domain = $domain
RETURN t.level AS level, t.status AS status, t.reason AS reason, count(*) AS tasks
ORDER BY level, status, reason
