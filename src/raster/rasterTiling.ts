/** How a raster is cut into tiles: the layout shared by the GeoTIFF writers and the overview pyramid. */
export interface RasterTiling {
  readonly width: number;
  readonly height: number;
  readonly tileWidth: number;
  readonly tileHeight: number;
  /** Tiles per row and per column, and in all. */
  readonly across: number;
  readonly down: number;
  readonly count: number;
}
