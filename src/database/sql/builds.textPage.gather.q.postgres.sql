with "m" as materialized (select "b"."id", "b"."uploaded_at" as "k"
from "builds" as "b"
where lower("b"."version_name") like $1 escape '\' and "b"."search_text" like $2 escape '\') select "m"."id"
from "m"
order by "m"."k" desc, "m"."id" desc
limit $3
offset $4
