{ grafanaDashboards+:: {} }
