// Solve rates of graded runs (`cw grade`) by run, model and level.
// Every graded prediction counts: a verifier error (no verdict) is not solved, and its count is shown beside.
// Params: $domain.
MATCH (g:Grade)-[:OF]->(t:Task)
WHERE t.domain = $domain
WITH g.run AS run, g.model AS model, t.level AS level, count(*) AS graded,
     count(CASE WHEN g.status = 'passed' THEN 1 END) AS passed,
     count(CASE WHEN g.status = 'failed' THEN 1 END) AS failed,
     count(CASE WHEN g.status = 'error' THEN 1 END) AS errors
RETURN run, model, level, graded, passed, failed, errors,
       CASE WHEN graded = 0 THEN NULL ELSE 1.0 * passed / graded END AS solve_rate
ORDER BY run, model, level
