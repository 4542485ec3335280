// Admission yield by level: of the groups attempted, how many became tasks (paper App. B.1).
// Params: $domain.
MATCH (t:Task)
WHERE t.domain = $domain
RETURN t.level AS level, count(*) AS attempted,
       count(CASE WHEN t.status = 'admitted' THEN 1 END) AS admitted,
       count(CASE WHEN t.status = 'rejected' THEN 1 END) AS rejected,
       count(CASE WHEN t.status = 'error' THEN 1 END) AS errors,
       1.0 * count(CASE WHEN t.status = 'admitted' THEN 1 END) / count(*) AS yield
ORDER BY level
