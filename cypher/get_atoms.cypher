UNWIND $ids AS x
MATCH (a:Atom {id: x})
RETURN a.id AS id, a.domain AS domain, a.title AS title, a.repo AS repo, a.files AS files,
       a.in_type AS in_type, a.out_type AS out_type, a.label AS label, a.source AS source,
       a.payload AS payload
