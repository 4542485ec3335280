MATCH (a:Atom)
RETURN a.domain AS domain, count(*) AS atoms
ORDER BY domain
