// cw explore: edges of one relation whose source atom belongs to $domain.
MATCH (a:Atom)-[e:${rel}]->(:Atom)
WHERE a.domain = $domain
RETURN count(e) AS edges
