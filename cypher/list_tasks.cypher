MATCH (t:Task)
WHERE ($domain = '' OR t.domain = $domain) AND ($status = '' OR t.status = $status)
  AND ($level = 0 OR t.level = $level)
RETURN t.id AS id, t.domain AS domain, t.level AS level, t.status AS status, t.reason AS reason,
       t.run AS run, t.created_at AS created_at
ORDER BY created_at, id
LIMIT $limit
