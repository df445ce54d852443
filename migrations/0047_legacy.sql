-- legacy: placeholder until the area lands.
SELECT 1;
