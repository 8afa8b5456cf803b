ROUTES = {"/v2/orders": "list_orders"}
