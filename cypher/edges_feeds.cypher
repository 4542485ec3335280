// The FEEDS edges leaving the atoms of a domain.
MATCH (a:Atom)-[e:FEEDS]->(b:Atom)
WHERE a.domain = $domain
RETURN a.id AS src, b.id AS dst, e.arg AS arg, e.via AS via
