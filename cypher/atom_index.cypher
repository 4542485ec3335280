MATCH (a:Atom)
WHERE a.domain = $domain
RETURN a.id AS id, a.label AS label, a.source AS source
ORDER BY id
