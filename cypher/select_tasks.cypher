// Tasks of a selection with their run's parameters, for export and grading ($ids = [] means any id).
MATCH (t:Task)
WHERE t.domain = $domain AND ($status = '' OR t.status = $status) AND ($level = 0 OR t.level = $level)
  AND (size($ids) = 0 OR t.id IN $ids)
OPTIONAL MATCH (t)-[:IN_RUN]->(r:Run)
RETURN t.id AS id, t.domain AS domain, t.level AS level, t.status AS status, t.reason AS reason,
       t.seed AS seed, t.run AS run, r.params AS run_params, t.created_at AS created_at,
       t.generator_version AS generator_version, t.prompt AS prompt, t.reference AS reference,
       t.verifier AS verifier
ORDER BY level, created_at, id
