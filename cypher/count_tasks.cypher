// How many tasks `list_tasks` would show without its LIMIT (`cw tasks list` says "showing K of N").
MATCH (t:Task)
WHERE ($domain = '' OR t.domain = $domain) AND ($status = '' OR t.status = $status)
  AND ($level = 0 OR t.level = $level)
RETURN count(t) AS tasks
