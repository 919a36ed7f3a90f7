#!/usr/bin/env python3
"""The made-up DEMs of docs/performance.md's few-day runs against r.sun: N x N cells of 30 m at 60 N (UTM 33N), sines
and a hill, about 800 m of relief, Float32 with nodata -9999.

    /usr/bin/python3 bench/made-up-dem.py N out.tif     (needs python3-gdal, which brings numpy)
"""
import sys

import numpy as np
from osgeo import gdal, osr

size = int(sys.argv[1])
out = sys.argv[2]
y, x = np.mgrid[0:size, 0:size].astype(float)
elevation = 400 + 300 * np.sin(x / 9.0) * np.cos(y / 13.0) + 500 * np.exp(-((x - size * 0.6) ** 2 + (y - size * 0.4) ** 2) / (2 * (size / 6) ** 2))
dataset = gdal.GetDriverByName('GTiff').Create(out, size, size, 1, gdal.GDT_Float32)
dataset.SetGeoTransform((500000, 30, 0, 6650000, 0, -30))
crs = osr.SpatialReference()
crs.ImportFromEPSG(32633)
dataset.SetProjection(crs.ExportToWkt())
band = dataset.GetRasterBand(1)
band.WriteArray(elevation.astype(np.float32))
band.SetNoDataValue(-9999)
dataset = None
