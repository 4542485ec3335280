// The HTTP address Neo4j Browser is served at, as the server is configured (advertised, else listening).
SHOW SETTINGS YIELD name, value
WHERE name IN ['server.http.advertised_address', 'server.http.listen_address', 'server.http.enabled']
RETURN name, value
