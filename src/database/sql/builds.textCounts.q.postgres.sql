select (select count(*) as "total"
from "builds" as "b"
where lower("b"."version_name") like $1 escape '\' and "b"."search_text" like $2 escape '\') as "total", (select coalesce(sum("c"."n"), 0) as "n"
from "build_counts" as "c") as "builds"
