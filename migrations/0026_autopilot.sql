-- x
SELECT 1;
